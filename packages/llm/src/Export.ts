/**
 * Export recorded gateway trajectories and environment trajectories to the formats Python trainers read:
 * chat-format JSONL with tool calls (OpenAI fine-tuning, TRL's `SFTTrainer` conversational format) and a per-step
 * layout with rewards and advantages for verl / verl-agent style RL.
 *
 * **Inputs** ({@link read})
 * - A gateway recording directory (`<dir>/sessions/*.jsonl`, see `Recorder`): exchanges with a 2xx status and no
 *   error are the turns, grouped into episodes by `(session, episode)` in recorded order; failed exchanges are left
 *   out. Rewards: one naming an `exchangeId` is added to that turn; one naming an episode (and no exchange) to the
 *   episode's last turn; one naming only a session to the last turn of each of its episodes. `success` is the last
 *   reward's flag. The group of an episode is its session.
 * - Environment trajectories: a JSONL file of core `Trajectory` objects, or a run directory holding
 *   `trajectories/*.jsonl` (`autodidact train ... --save-trajectories N`), including the optim `TextTrajectory`
 *   (its `admissible` lists are shown to the model). Turn `t`'s prompt is: system (`Task: <task>`, or the env id),
 *   then for every earlier step user (observation) / assistant (action), then user (observation `t`, and
 *   `Admissible actions: ...` when known); the response is the action. Observations and actions that are not
 *   strings are JSON-encoded. Trajectories with the same `(envId, task, seed)` form one group (GRPO's group).
 * - A bad line fails with `ExportInputError` naming the file and the 1-based line.
 *
 * **Chat format** ({@link toChat}): one JSON object per line, `{ messages, tools? }` where `messages` is the prompt
 * followed by the assistant message (`{ role: "assistant", content, tool_calls? }`, tool calls in the OpenAI wire
 * form). `per: "episode"` (default) writes one row per episode: the last turn's prompt and response, which is the
 * whole conversation when the agent keeps its history (environment trajectories always do); `per: "turn"` writes one
 * row per model call (for agents that rebuild their prompt each call).
 *
 * **verl layout** ({@link toVerl}, {@link VerlRow}): one row per turn with `data_source`, `prompt` (chat messages),
 * `response` (text; tool calls JSON-encoded when there is no text), `tool_calls`, `reward` (the step's),
 * `episode_return`, `advantage`, `episode_index`, `group_index`, `step_index`, `uid` (the group id, as verl-agent's
 * GRPO/GiGPO groups by `uid`), `traj_uid` (the episode id), `done` (last turn of the episode), `success`.
 * Advantages: `"recorded"` (default) copies a step's `advantage` (null when absent); `"grpo"` is the episode-level
 * GRPO advantage `(R - mean_g) / (std_g + 1e-6)` over the episodes of the group, given to every step of the episode
 * (Shao et al. 2024, DeepSeekMath, arXiv:2402.03300, Sec. 4.1.2): `@autodidact/optim`'s `Advantages.grpo`, so the
 * one rule of the group-relative advantage kernel holds (sample std, n − 1, as torch.std/verl/TRL; a group of one
 * episode gets 0).
 *
 * @example
 * ```ts
 * import { Export } from "@autodidact/llm"
 * import { Effect } from "effect"
 * const program = Effect.gen(function*() {
 *   const episodes = yield* Export.read("./gateway-data")
 *   yield* Export.writeJsonl("./sft.jsonl", Export.toChat(episodes))
 *   yield* Export.writeJsonl("./verl.jsonl", Export.toVerl(episodes, { advantage: "grpo" }))
 * })
 * ```
 * @see https://platform.openai.com/docs/guides/supervised-fine-tuning (chat format with tools)
 * @see https://huggingface.co/docs/trl/dataset_formats (conversational `messages`)
 * @see Feng et al., "Group-in-Group Policy Optimization for LLM Agent Training" (verl-agent), arXiv:2505.10978
 * @since 0.1.0
 */
import { Trajectory } from "@autodidact/core"
import { AtomicFile } from "@autodidact/core/node"
import { Advantages } from "@autodidact/optim"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ExportInputError, RecordError } from "./LlmErrors.js"
import { type Exchange, parseRows, type Reward, type Row } from "./Recorder.js"

/** A chat message in the OpenAI wire form (content may be null on an assistant message with tool calls). @category models @since 0.1.0 */
export interface Message {
  readonly role: string
  readonly content: unknown
  readonly tool_calls?: ReadonlyArray<unknown> | undefined
  readonly [key: string]: unknown
}

/** One model call of an episode. @category models @since 0.1.0 */
export interface Turn {
  readonly prompt: ReadonlyArray<Message>
  readonly response: Message
  readonly tools?: ReadonlyArray<unknown> | undefined
  readonly reward: number
  readonly advantage?: number | undefined
}

/** An episode, normalized from either source. @category models @since 0.1.0 */
export interface Episode {
  /** Episode id (`traj_uid`): `<session>/<episode>` for the gateway, `<file>#<line>` for trajectories. */
  readonly id: string
  /** Group id (`uid`): the session, or `<envId>|<task>|<seed>`. */
  readonly group: string
  /** `data_source`: `gateway` or the env id. */
  readonly source: string
  readonly turns: ReadonlyArray<Turn>
  readonly return: number
  readonly success?: boolean | undefined
}

// ---------------------------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------------------------

/**
 * Episodes of gateway rows (see the module docs).
 *
 * @category reading
 * @since 0.1.0
 */
export const fromGatewayRows = (rows: ReadonlyArray<Row>): Array<Episode> => {
  const order: Array<string> = []
  const byKey = new Map<string, { session: string; episode: string | undefined; xs: Array<Exchange> }>()
  const keyOf = (session: string, episode: string | undefined) => (episode === undefined ? session : `${session}/${episode}`)
  for (const r of rows) {
    if (r.type !== "exchange" || r.status < 200 || r.status >= 300 || r.error !== undefined || r.response === undefined) continue
    const k = keyOf(r.session, r.episode)
    let g = byKey.get(k)
    if (g === undefined) {
      g = { session: r.session, episode: r.episode, xs: [] }
      byKey.set(k, g)
      order.push(k)
    }
    g.xs.push(r)
  }
  const rewards = rows.filter((r): r is Reward => r.type === "reward")
  return order.map((k) => {
    const g = byKey.get(k)!
    const perTurn = g.xs.map(() => 0)
    let success: boolean | undefined
    for (const rw of rewards) {
      if (rw.session !== g.session) continue
      if (rw.exchangeId !== undefined) {
        const i = g.xs.findIndex((x) => x.id === rw.exchangeId)
        if (i >= 0 && rw.reward !== undefined) perTurn[i]! += rw.reward
        if (i >= 0 && rw.success !== undefined) success = rw.success
      } else if (rw.episode === undefined || rw.episode === g.episode) {
        if (rw.reward !== undefined) perTurn[perTurn.length - 1]! += rw.reward
        if (rw.success !== undefined) success = rw.success
      }
    }
    const turns = g.xs.map((x, i): Turn => ({
      prompt: x.request.messages as ReadonlyArray<Message>,
      response: {
        role: "assistant",
        content: x.response!.content,
        ...(x.response!.toolCalls.length === 0 ? {} : { tool_calls: x.response!.toolCalls })
      },
      ...(x.request.tools === undefined ? {} : { tools: x.request.tools }),
      reward: perTurn[i]!
    }))
    return {
      id: k,
      group: g.session,
      source: "gateway",
      turns,
      return: perTurn.reduce((a, b) => a + b, 0),
      ...(success === undefined ? {} : { success })
    }
  })
}

const text = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v ?? null))

/**
 * The episode of one environment trajectory (see the module docs for the prompt layout).
 *
 * @category reading
 * @since 0.1.0
 */
export const fromTrajectory = (t: Trajectory.Trajectory, id: string): Episode => {
  const system: Message = { role: "system", content: t.task !== undefined ? `Task: ${t.task}` : `Environment: ${t.envId}` }
  const history: Array<Message> = [system]
  const turns: Array<Turn> = []
  t.steps.forEach((s) => {
    const admissible = (s as { readonly admissible?: unknown }).admissible
    const obs = text(s.observation) + (Array.isArray(admissible) && admissible.length > 0 ? `\nAdmissible actions: ${admissible.map(text).join(", ")}` : "")
    history.push({ role: "user", content: obs })
    const response: Message = { role: "assistant", content: text(s.action) }
    turns.push({ prompt: [...history], response, reward: s.reward, ...(s.advantage === undefined ? {} : { advantage: s.advantage }) })
    history.push(response)
  })
  return {
    id,
    group: `${t.envId}|${t.task ?? ""}|${t.seed ?? ""}`,
    source: t.envId,
    turns,
    return: t.return,
    ...(t.success === undefined ? {} : { success: t.success })
  }
}

const decodeTrajectory = Schema.decodeUnknownExit(Trajectory.Trajectory)

/**
 * Episodes of a JSONL file of trajectories; a bad line fails with its number.
 *
 * @category reading
 * @since 0.1.0
 */
export const parseTrajectories = (file: string, content: string): Effect.Effect<Array<Episode>, ExportInputError> =>
  Effect.gen(function*() {
    const out: Array<Episode> = []
    const lines = content.split("\n")
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i]!.trim()
      if (l === "") continue
      let v: unknown
      try {
        v = JSON.parse(l)
      } catch {
        return yield* new ExportInputError({ file, line: i + 1, reason: "not JSON" })
      }
      const r = decodeTrajectory(v)
      if (r._tag === "Failure") return yield* new ExportInputError({ file, line: i + 1, reason: `not a trajectory: ${String(r.cause).slice(0, 300)}` })
      // keep the extra fields of text steps (admissible) that the core schema does not name
      const raw = v as { steps: ReadonlyArray<{ admissible?: unknown }> }
      const t: Trajectory.Trajectory = { ...r.value, steps: r.value.steps.map((s, k) => ({ ...s, ...(raw.steps[k]?.admissible === undefined ? {} : { admissible: raw.steps[k]!.admissible }) })) }
      out.push(fromTrajectory(t, `${path.basename(file)}#${i + 1}`))
    }
    return out
  })

const readText = (file: string) =>
  Effect.try({ try: () => fs.readFileSync(file, "utf8"), catch: (e) => new ExportInputError({ file, line: 0, reason: String((e as Error).message ?? e) }) })

/**
 * Read episodes from a gateway recording directory, a run directory with `trajectories/*.jsonl`, or a JSONL file of
 * trajectories or gateway rows (detected from the first row).
 *
 * @category reading
 * @since 0.1.0
 */
export const read = (from: string): Effect.Effect<Array<Episode>, ExportInputError> =>
  Effect.gen(function*() {
    const stat = yield* Effect.try({ try: () => fs.statSync(from), catch: () => new ExportInputError({ file: from, line: 0, reason: "no such file or directory" }) })
    if (stat.isFile()) return yield* readFile(from)
    const sessions = path.join(from, "sessions")
    const trajectories = path.join(from, "trajectories")
    if (fs.existsSync(sessions)) {
      const rows: Array<Row> = []
      for (const f of fs.readdirSync(sessions).filter((n) => n.endsWith(".jsonl")).sort()) {
        const file = path.join(sessions, f)
        const r = parseRows(yield* readText(file))
        if ("line" in r) return yield* new ExportInputError({ file, line: r.line, reason: r.reason })
        rows.push(...r.rows)
      }
      return fromGatewayRows(rows)
    }
    if (fs.existsSync(trajectories)) {
      const out: Array<Episode> = []
      for (const f of fs.readdirSync(trajectories).filter((n) => n.endsWith(".jsonl")).sort()) {
        const file = path.join(trajectories, f)
        out.push(...yield* parseTrajectories(file, yield* readText(file)))
      }
      return out
    }
    return yield* new ExportInputError({ file: from, line: 0, reason: "neither a gateway recording (sessions/) nor a run directory (trajectories/)" })
  })

const readFile = (file: string): Effect.Effect<Array<Episode>, ExportInputError> =>
  Effect.gen(function*() {
    const content = yield* readText(file)
    const first = content.split("\n").find((l) => l.trim() !== "")
    let type: unknown
    try {
      type = first === undefined ? undefined : (JSON.parse(first) as { type?: unknown }).type
    } catch {
      return yield* new ExportInputError({ file, line: content.split("\n").findIndex((l) => l.trim() !== "") + 1, reason: "not JSON" })
    }
    if (type === "exchange" || type === "reward") {
      const r = parseRows(content)
      if ("line" in r) return yield* new ExportInputError({ file, line: r.line, reason: r.reason })
      return fromGatewayRows(r.rows)
    }
    return yield* parseTrajectories(file, content)
  })

// ---------------------------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------------------------

/** A chat-format row. @category models @since 0.1.0 */
export interface ChatRow {
  readonly messages: ReadonlyArray<Message>
  readonly tools?: ReadonlyArray<unknown> | undefined
}

/**
 * Chat-format rows (see the module docs).
 *
 * @category writing
 * @since 0.1.0
 */
export const toChat = (episodes: ReadonlyArray<Episode>, options: { readonly per?: "episode" | "turn" | undefined } = {}): Array<ChatRow> => {
  const row = (t: Turn): ChatRow => ({ messages: [...t.prompt, t.response], ...(t.tools === undefined ? {} : { tools: t.tools }) })
  return episodes.flatMap((e) => {
    if (e.turns.length === 0) return []
    return (options.per ?? "episode") === "turn" ? e.turns.map(row) : [row(e.turns[e.turns.length - 1]!)]
  })
}

/**
 * One row of the verl layout.
 *
 * @category schemas
 * @since 0.1.0
 */
export const VerlRow = Schema.Struct({
  data_source: Schema.String,
  prompt: Schema.Array(Schema.Unknown),
  response: Schema.String,
  tool_calls: Schema.Array(Schema.Unknown),
  reward: Schema.Number,
  episode_return: Schema.Number,
  advantage: Schema.NullOr(Schema.Number),
  episode_index: Schema.Int,
  group_index: Schema.Int,
  step_index: Schema.Int,
  uid: Schema.String,
  traj_uid: Schema.String,
  done: Schema.Boolean,
  success: Schema.NullOr(Schema.Boolean)
})
/** @category models @since 0.1.0 */
export type VerlRow = typeof VerlRow.Type

/**
 * Episode-level GRPO advantages `(R - mean) / (std + eps)` within each group (episodes with the same `group`), by
 * episode index: `out[i]` for `episodes[i]`, `[episodes.length]`.
 *
 * **Details**: `@autodidact/optim`'s `Advantages.grpo` on each episode's `return` (one implementation of the
 * group-relative advantage, the `GroupNorm` kernel of `@autodidact/kernels`): the sample std (n − 1, as
 * torch.std/verl/TRL), `eps` added to it (default 1e-6, optim's), a group of one episode gets 0 and an episode at its
 * group's mean exactly 0. Returns must be finite (`AdvantageInputError` of optim, thrown, otherwise).
 *
 * @see Shao et al., "DeepSeekMath" (GRPO), arXiv:2402.03300, Sec. 4.1.2
 * @category writing
 * @since 0.1.0
 */
export const grpoAdvantages = (episodes: ReadonlyArray<Episode>, eps = 1e-6): Float64Array => {
  const out = new Float64Array(episodes.length)
  if (episodes.length === 0) return out
  const members = new Map<string, Array<number>>()
  episodes.forEach((e, i) => {
    const g = members.get(e.group)
    if (g === undefined) members.set(e.group, [i])
    else g.push(i)
  })
  const groups = [...members.values()]
  const adv = Advantages.grpo(groups.map((idx) => idx.map((i) => ({ rewards: [episodes[i]!.return] }))), { ...Advantages.defaults, eps })
  groups.forEach((idx, g) => idx.forEach((i, k) => (out[i] = adv[g]![k]![0]!)))
  return out
}

/**
 * Rows of the verl layout (see the module docs).
 *
 * @category writing
 * @since 0.1.0
 */
export const toVerl = (episodes: ReadonlyArray<Episode>, options: { readonly advantage?: "recorded" | "grpo" | undefined } = {}): Array<VerlRow> => {
  const grpo = options.advantage === "grpo" ? grpoAdvantages(episodes) : undefined
  const groupIndex = new Map<string, number>()
  const rows: Array<VerlRow> = []
  episodes.forEach((e, ei) => {
    let gi = groupIndex.get(e.group)
    if (gi === undefined) {
      gi = groupIndex.size
      groupIndex.set(e.group, gi)
    }
    e.turns.forEach((t, si) => {
      const calls = t.response.tool_calls ?? []
      const content = t.response.content
      rows.push({
        data_source: e.source,
        prompt: t.prompt,
        response: typeof content === "string" && content !== "" ? content : calls.length > 0 ? JSON.stringify(calls) : text(content ?? ""),
        tool_calls: calls,
        reward: t.reward,
        episode_return: e.return,
        advantage: grpo !== undefined ? grpo[ei]! : t.advantage ?? null,
        episode_index: ei,
        group_index: gi,
        step_index: si,
        uid: e.group,
        traj_uid: e.id,
        done: si === e.turns.length - 1,
        success: e.success ?? null
      })
    })
  })
  return rows
}

/**
 * Write rows as JSONL, atomically (temp file, fsync, rename); fails with `RecordError` naming the file.
 *
 * @category writing
 * @since 0.1.0
 */
export const writeJsonl = (file: string, rows: ReadonlyArray<unknown>): Effect.Effect<void, RecordError> =>
  AtomicFile.write(file, rows.map((r) => JSON.stringify(r) + "\n").join("")).pipe(
    Effect.mapError((e) => new RecordError({ location: file, reason: e.reason }))
  )
