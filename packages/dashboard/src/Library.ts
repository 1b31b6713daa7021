/**
 * Memory and skills next to runs: a summary of a skill library directory (`skills/`, the format
 * `@autodidact/skills` writes: one `<name>.json` record with `versions`, `active` and `stats` per skill, plus
 * `<name>.js`) and of an experience store (`memory/`, record counts by kind), found in a run directory or in the
 * runs directory itself.
 *
 * *Details*: skill records are read as plain JSON (the skills package and its sandbox are never imported). The
 * experience store is a PGlite (Postgres) data directory, too heavy to open here, so its counts come from a
 * `memory-summary.json` written next to it or inside it:
 * `{ "counts": { "trajectory": 120, "insight": 14, "reflection": 9, "tip": 3 }, "total": 146, "writtenAt": "…" }`
 * (a bare `{ "trajectory": 120, … }` object is accepted too). Without one, a store is reported with
 * `counts: null` and a warning. Files whose real path leaves the directory read (a symlink elsewhere) are skipped
 * with a warning (`Paths.realInside`).
 *
 * @example
 * import { Library } from "@autodidact/dashboard"
 * const lib = await Library.read("runs/x")
 * if (lib.skills) console.log(lib.skills.skills, lib.skills.top[0]?.name)
 * @since 0.0.0
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { realInside } from "./Paths.js"

/** One skill's usage, from its record's `stats`. */
export interface SkillUsage {
  readonly name: string
  readonly calls: number
  readonly successes: number
  /** successes / calls, or null before the first call. */
  readonly successRate: number | null
  readonly meanReturn: number | null
  readonly activeVersion: number | null
  readonly versions: number
}

/** A skill library directory, summarized. */
export interface SkillsSummary {
  /** Path relative to the runs directory (`skills` or `<run>/skills`). */
  readonly path: string
  readonly skills: number
  /** Admitted versions over all skills. */
  readonly versions: number
  readonly calls: number
  /** The most-called skills (ties by name), at most `top` of them. */
  readonly top: ReadonlyArray<SkillUsage>
  readonly warnings: ReadonlyArray<string>
}

/** An experience store, summarized. */
export interface MemorySummary {
  readonly path: string
  /** Records by kind (`trajectory`, `insight`, `reflection`, `tip`), or null when no `memory-summary.json` was found. */
  readonly counts: Readonly<Record<string, number>> | null
  readonly total: number | null
  readonly writtenAt: string | null
  readonly warnings: ReadonlyArray<string>
}

/** What {@link read} found in one directory. */
export interface LibrarySummary {
  readonly skills: SkillsSummary | null
  readonly memory: MemorySummary | null
}

/** The file name of the experience store's counts. */
export const memorySummaryFile = "memory-summary.json"

/** Skill JSON files read at most (a library is small; this keeps a stray huge folder cheap). */
const maxSkillFiles = 5000

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null)

const isDir = (p: string): boolean => {
  try {
    return fs.statSync(p).isDirectory()
  } catch {
    return false
  }
}

const readJson = async (file: string): Promise<unknown> => JSON.parse(await fs.promises.readFile(file, "utf8"))

/** Summarize a skill library directory; undefined when `dir` holds no skill records. */
export const readSkills = async (dir: string, label: string, top = 10): Promise<SkillsSummary | undefined> => {
  let files: Array<string>
  try {
    files = (await fs.promises.readdir(dir)).filter((f) => f.endsWith(".json") && !f.startsWith(".")).sort()
  } catch {
    return undefined
  }
  const warnings: Array<string> = []
  if (files.length > maxSkillFiles) {
    warnings.push(`${files.length} files; read the first ${maxSkillFiles}`)
    files = files.slice(0, maxSkillFiles)
  }
  const usage: Array<SkillUsage> = []
  let versions = 0
  for (const file of files) {
    const real = realInside(dir, file)
    if (real === undefined) {
      warnings.push(`${file}: outside the library (a symlink elsewhere?); skipped`)
      continue
    }
    let rec: unknown
    try {
      rec = await readJson(real)
    } catch {
      warnings.push(`${file}: not JSON`)
      continue
    }
    if (typeof rec !== "object" || rec === null || !Array.isArray((rec as Record<string, unknown>)["versions"])) {
      warnings.push(`${file}: not a skill record`)
      continue
    }
    const r = rec as Record<string, unknown>
    const stats = typeof r["stats"] === "object" && r["stats"] !== null ? (r["stats"] as Record<string, unknown>) : {}
    const calls = Math.max(0, num(stats["calls"]) ?? 0)
    const successes = Math.max(0, num(stats["successes"]) ?? 0)
    const n = (r["versions"] as Array<unknown>).length
    versions += n
    usage.push({
      name: typeof r["name"] === "string" ? r["name"] : file.slice(0, -".json".length),
      calls,
      successes,
      successRate: calls > 0 ? successes / calls : null,
      meanReturn: calls > 0 ? num(stats["meanReturn"]) : null,
      activeVersion: num(r["active"]),
      versions: n
    })
  }
  if (usage.length === 0) return undefined
  usage.sort((a, b) => b.calls - a.calls || a.name.localeCompare(b.name))
  return {
    path: label,
    skills: usage.length,
    versions,
    calls: usage.reduce((s, u) => s + u.calls, 0),
    top: usage.slice(0, Math.max(0, top)),
    warnings
  }
}

/** Counts by kind from a parsed `memory-summary.json` (its `counts`, or the object's own numeric fields). */
const countsOf = (v: unknown): Record<string, number> | undefined => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined
  const o = v as Record<string, unknown>
  const src = typeof o["counts"] === "object" && o["counts"] !== null && !Array.isArray(o["counts"]) ? (o["counts"] as Record<string, unknown>) : o
  const out: Record<string, number> = {}
  for (const [k, n] of Object.entries(src)) if (k !== "total" && num(n) !== null && (n as number) >= 0) out[k] = n as number
  return Object.keys(out).length > 0 ? out : undefined
}

/**
 * Summarize the experience store of `dir`: `dir/memory-summary.json`, or `dir/memory/memory-summary.json`, or a
 * `dir/memory/` directory without one (counts null). Undefined when there is none of these.
 */
export const readMemory = async (dir: string, label: string): Promise<MemorySummary | undefined> => {
  const storeDir = path.join(dir, "memory")
  const hasStore = isDir(storeDir)
  const where = label === "" ? "memory" : `${label}/memory`
  for (const name of [`memory/${memorySummaryFile}`, memorySummaryFile]) {
    if (!fs.existsSync(path.join(dir, name))) continue
    const file = realInside(dir, name)
    if (file === undefined) return { path: where, counts: null, total: null, writtenAt: null, warnings: [`${name} leads outside ${label === "" ? "the runs directory" : label}; not read`] }
    let parsed: unknown
    try {
      parsed = await readJson(file)
    } catch {
      return { path: where, counts: null, total: null, writtenAt: null, warnings: [`${memorySummaryFile} unreadable`] }
    }
    const counts = countsOf(parsed)
    if (counts === undefined) return { path: where, counts: null, total: null, writtenAt: null, warnings: [`${memorySummaryFile} has no counts`] }
    const o = parsed as Record<string, unknown>
    return {
      path: where,
      counts,
      total: num(o["total"]) ?? Object.values(counts).reduce((a, b) => a + b, 0),
      writtenAt: typeof o["writtenAt"] === "string" ? o["writtenAt"] : null,
      warnings: []
    }
  }
  if (!hasStore) return undefined
  return { path: where, counts: null, total: null, writtenAt: null, warnings: [`no ${memorySummaryFile}: counts unavailable (the store is not opened by the dashboard)`] }
}

/** Memory and skills found in `dir` (a run directory or the runs directory); `label` prefixes the paths shown. */
export const read = async (dir: string, label = ""): Promise<LibrarySummary> => {
  const skillsDir = realInside(dir, "skills")
  const skills = skillsDir !== undefined && isDir(skillsDir) ? await readSkills(skillsDir, label === "" ? "skills" : `${label}/skills`) : undefined
  const memory = await readMemory(dir, label)
  return { skills: skills ?? null, memory: memory ?? null }
}

/** Cheap check (no file is parsed): does `dir` hold a `skills/` directory, a `memory/` directory or a `memory-summary.json`? */
export const present = (dir: string): boolean =>
  isDir(path.join(dir, "skills")) || isDir(path.join(dir, "memory")) || fs.existsSync(path.join(dir, memorySummaryFile))
