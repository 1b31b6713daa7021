/**
 * The household agent: one run over a stream of `TextHousehold-v0` tasks ({@link Stream}) that trains a DRRN policy
 * with GiGPO (`@autodidact/optim` `MultiTurnTrainer`, the same trainer and household settings as `autodidact train
 * --env TextHousehold-v0 --algo gigpo`) while three switchable components learn from the same trajectories:
 *
 * - memory (`@autodidact/memory/store`): every episode goes to the experience store (PGlite in `<out>/memory`) as a
 *   trajectory record under its task template (`ExemplarAgent.abstractTask`); before each batch, the store's
 *   exemplars for the coming tasks' templates (Synapse: the most similar successful trajectories) give a plan
 *   (`ExemplarAgent.planOf`) that shapes the policy's action prior (`memoryPrior`, default on: a logit bias on the
 *   admissible commands of the plan's next step, {@link planPrior}, through the trainer's `actionPrior` hook) and/or
 *   is shown to the policy as one more line of its observation (`exemplarLine`; default off when the prior is on).
 * - skills (`@autodidact/skills`): every `skillEvery` updates, `Discovery.discover` mines the successful trajectories
 *   for action n-grams, verifies them on held-out successes and admits the ones that pass into the library
 *   (`<out>/skills`); admitted macros are offered as options (`SyncSkillOptionsEnv`, `Discovery.macroOption`).
 * - PRM (`@autodidact/rewards`): every `prmEvery` updates, a process reward model (`ProcessRewardModel.train`) is
 *   fitted on the run's own steps with Monte Carlo targets (each step's target is its episode's success: one
 *   rollout per state, AgentPRM's estimate with K = 1 and no extra env steps); its progress
 *   `prmWeight · (Q_t − Q_{t−1})` (`ProcessReward.stepAdvantages` with outcome weight 0; `Q_t` the PRM's success
 *   probability of step t, `Q_{−1}` the group's mean `Q_0`) enters the update where `prmInto` says:
 *   `"advantages"` (default) adds it to GiGPO's advantages after estimation (the trainer's `stepAdvantages` hook);
 *   `"rewards"` adds it to each step's env reward before estimation (the trainer's `stepRewards` hook), so the
 *   process rewards enter GiGPO's episode returns and step-level anchor-state groups, as AgentPRM (arXiv:2502.10325)
 *   uses process rewards inside RL. The default is the one that measured better (README, "Measured"): with GiGPO's
 *   std normalization, a group whose episodes all fail gets unit-scale advantages from the PRM's progress alone.
 *
 * The asynchronous work (store writes and queries, skill admission) runs in the trainer's `betweenUpdates` hook,
 * so a seed reproduces the run. The budget `steps` counts primitive env steps of training rollouts (a skill call
 * counts the steps it took; evaluations and the forward-transfer baseline are not counted).
 *
 * Writes one run directory (core `RunDirectory`): `config.json`; `metrics.jsonl` with the trainer's episode, update
 * and evaluation rows (`globalStep` in primitive env steps, the trainer's count in `decisions`), a `stream` row per
 * task ({@link StreamMetrics}: `taskSuccess`, `streamSuccess`, `unseenSuccess`, `forwardTransfer`, `forgetting`),
 * `memory`/`skills`/`prm` rows when those components act, and a `summary` row; `trajectories/stream.jsonl` (one
 * transcript per stream task, the exemplar plan shown and skills called in each step's `info`);
 * `checkpoints/policy.json`.
 * @since 0.0.0
 */
import { InvalidOptionError, Rng, TextEpisode } from "@autodidact/core"
import { AtomicFile, RunDirectory } from "@autodidact/core/node"
import { TextEnv } from "@autodidact/envs"
import { Backend } from "@autodidact/kernels/tfjs"
import { Embedder } from "@autodidact/memory"
import { ExemplarAgent, Records, Store } from "@autodidact/memory/store"
import { type DrrnPolicy, GroupRollout, MultiTurnTrainer, TextAbstraction, TextTasks } from "@autodidact/optim"
import { DrrnPolicyFile } from "@autodidact/optim/node"
import { ProcessReward, Search } from "@autodidact/rewards"
import { Mlp, ProcessRewardModel } from "@autodidact/rewards/train"
import { Discovery, Sandbox, SkillLibrary, SkillOptions, SyncSandbox } from "@autodidact/skills"
import { Effect, Layer } from "effect"
import * as path from "node:path"
import * as Stream from "./Stream.js"
import { StreamMetrics, streamRow, summaryFigures, type SummaryFigures } from "./StreamMetrics.js"

const ENV_ID = "TextHousehold-v0"

/** What a run takes. */
export interface AgentOptions {
  /** Seed of the stream, the policy, the rollouts and the components (non-negative integer). */
  readonly seed: number
  /** Primitive env steps of training rollouts (positive integer). */
  readonly steps: number
  /** The run directory. */
  readonly out: string
  /**
   * The experience store and its exemplars (default on; `--no-memory` turns it off, `--memory` is accepted). With
   * the action prior (`memoryPrior`) the full agent beat plain GiGPO on 5 of 5 seeds in this app's README ablation;
   * as an observation line alone it lowered success.
   */
  readonly memory: boolean
  /**
   * Where the policy sees the exemplar plan with memory on: appended to every observation (`every-step`), to the
   * first one only (`first-step`: the better of the two in the README's ablation), or nowhere (`none`: the
   * observation is unchanged; episodes are still stored and exemplars retrieved, for the prior, the transcripts and
   * the `memory` rows). Default: `none` when `memoryPrior > 0`, else `first-step`.
   */
  readonly exemplarLine?: "every-step" | "first-step" | "none" | undefined
  /**
   * Weight w (logit units, finite, ≥ 0) of the exemplar plan as the policy's action prior with memory on: the
   * admissible commands matching the plan's next not-yet-done step get bias `+w` ({@link planPrior}); 0 turns the
   * prior off. Default 1 (`--memory-prior W`).
   */
  readonly memoryPrior: number
  /** How the prior matches commands to plan steps ({@link planPrior}): `"roles"` (default) or `"command"`. */
  readonly memoryPriorMatch?: "command" | "roles" | undefined
  /**
   * The experience store's directory (`--memory-dir`; default `<out>/memory`): an existing store's episodes are
   * exemplars from the first batch on (a stream continued over runs).
   */
  readonly memoryDir?: string | undefined
  /**
   * Skill discovery and skills as options (`--skills`; default off: in this app's README ablation skills lowered
   * success alone and inside the full agent, since discovery admits navigation macros; `--no-skills` is accepted).
   */
  readonly skills: boolean
  /** The process reward model's progress in GiGPO's update (`--no-prm`; where: `prmInto`). */
  readonly prm: boolean
  /**
   * Where the PRM's progress enters GiGPO: `"advantages"` (default: added after estimation) or `"rewards"` (added to the
   * step rewards before estimation, so it shapes the episode and anchor-state groups).
   */
  readonly prmInto: "advantages" | "rewards"
  /** A JSON-lines stream file instead of the generator. */
  readonly stream?: string | undefined
  /** Share of `steps` spent in the seen phase of the generator, in [0, 1] (default 0.5). */
  readonly seenFraction: number
  /** TextHousehold difficulty: easy, default or hard. */
  readonly difficulty: string
  /** Step limit of an episode (default: the setup's, 50). */
  readonly maxSteps?: number | undefined
  /** Rollouts per task (GiGPO's group). */
  readonly groupSize: number
  /** Stream tasks per update. */
  readonly tasksPerBatch: number
  /** Evaluation on the unseen split every this many updates (0: only the final one). */
  readonly evalEvery: number
  /** Tasks of each evaluation. */
  readonly evalEpisodes: number
  /** Discovery every this many updates. */
  readonly skillEvery: number
  /** Most admitted skills offered as options. */
  readonly maxSkills: number
  /** PRM refit every this many updates. */
  readonly prmEvery: number
  /** Weight c of the PRM's progress `c · (Q_t − Q_{t−1})` (in advantage units, or env reward units with `prmInto: "rewards"`). */
  readonly prmWeight: number
  /** Replace an existing run directory. */
  readonly overwrite: boolean
  /** DRRN sizes (defaults: the trainer's). */
  readonly policy?: Partial<DrrnPolicy.Config> | undefined
  /** A line of progress (stderr in the command line). */
  readonly log?: ((line: string) => void) | undefined
}

/** Defaults of everything but `out`. */
export const defaults: Omit<AgentOptions, "out"> = {
  seed: 1,
  steps: 100_000,
  memory: true,
  memoryPrior: 1,
  skills: false,
  prm: true,
  seenFraction: 0.5,
  difficulty: "default",
  groupSize: 8,
  tasksPerBatch: 8,
  evalEvery: 10,
  evalEpisodes: 20,
  skillEvery: 4,
  maxSkills: 6,
  prmEvery: 4,
  prmWeight: 1,
  prmInto: "advantages",
  overwrite: false
}

/** What a run reports (also its `summary` row). */
export interface Summary extends SummaryFigures {
  readonly run: string
  readonly seed: number
  readonly components: { readonly memory: boolean; readonly skills: boolean; readonly prm: boolean }
  readonly envSteps: number
  readonly decisions: number
  readonly updates: number
  /** Final evaluation on the unseen split (greedy off, as the trainer evaluates). */
  readonly evalSuccess: number
  readonly storedEpisodes: number
  readonly exemplarHits: number
  readonly admittedSkills: ReadonlyArray<string>
  readonly skillCalls: number
  readonly prmFits: number
  readonly wallSeconds: number
}

const positiveInt = (name: string, v: number) => {
  if (!Number.isSafeInteger(v) || v < 1) throw new InvalidOptionError({ option: name, value: v, reason: "must be a positive integer" })
}

/** Validate options; throws InvalidOptionError naming the first bad one. */
export const validate = (o: AgentOptions): AgentOptions => {
  if (!Number.isSafeInteger(o.seed) || o.seed < 0) throw new InvalidOptionError({ option: "seed", value: o.seed, reason: "must be a non-negative integer" })
  if (o.maxSteps !== undefined) positiveInt("maxSteps", o.maxSteps)
  for (const k of ["steps", "groupSize", "tasksPerBatch", "evalEpisodes", "skillEvery", "maxSkills", "prmEvery"] as const) positiveInt(k, o[k])
  if (!Number.isSafeInteger(o.evalEvery) || o.evalEvery < 0) throw new InvalidOptionError({ option: "evalEvery", value: o.evalEvery, reason: "must be a non-negative integer" })
  if (!(o.seenFraction >= 0 && o.seenFraction <= 1)) throw new InvalidOptionError({ option: "seenFraction", value: o.seenFraction, reason: "must be in [0, 1]" })
  if (!(Number.isFinite(o.prmWeight) && o.prmWeight >= 0)) throw new InvalidOptionError({ option: "prmWeight", value: o.prmWeight, reason: "must be a finite number ≥ 0" })
  if (!["advantages", "rewards"].includes(o.prmInto)) throw new InvalidOptionError({ option: "prmInto", value: o.prmInto, reason: "must be advantages or rewards" })
  if (!["easy", "default", "hard"].includes(o.difficulty)) throw new InvalidOptionError({ option: "difficulty", value: o.difficulty, reason: "must be easy, default or hard" })
  if (!(Number.isFinite(o.memoryPrior) && o.memoryPrior >= 0)) throw new InvalidOptionError({ option: "memoryPrior", value: o.memoryPrior, reason: "must be a finite number ≥ 0" })
  if (o.memoryPriorMatch !== undefined && !["command", "roles"].includes(o.memoryPriorMatch)) throw new InvalidOptionError({ option: "memoryPriorMatch", value: o.memoryPriorMatch, reason: "must be command or roles" })
  if (o.exemplarLine !== undefined && !["every-step", "first-step", "none"].includes(o.exemplarLine)) throw new InvalidOptionError({ option: "exemplarLine", value: o.exemplarLine, reason: "must be every-step, first-step or none" })
  if (o.out.length === 0) throw new InvalidOptionError({ option: "out", value: o.out, reason: "must name a directory" })
  return o
}

/** The memory's line in the observation: the exemplar's plan with this task's roles. */
const planLine = (plan: ReadonlyArray<string>, roles: ReadonlyArray<string>): string =>
  `Memory: a similar task was solved by: ${plan.map((s) => s.replace(/\{(\d+)\}/g, (w, i: string) => roles[Number(i)] ?? w)).join(", ")}.`

/**
 * The exemplar plan as a per-action prior (ExpeL / Synapse-style exemplar reuse, as a logit bias instead of a
 * prompt line): `plan` is the retrieved exemplar's key commands in role form (`ExemplarAgent.planOf`, e.g.
 * `["take {0} from countertop", "heat {0} with microwave", "move {0} to {1}"]`), `roles` this task's role words
 * (`ExemplarAgent.taskRoles`), so an admissible command matches a plan step when its role form under this task's
 * roles (`ExemplarAgent.abstractAction`: `"take apple 2 from countertop 1"` → `"take {0} from countertop"`) equals
 * it — the role substitution of the observation line, insensitive to instance numbers. Progress: the episode's
 * earlier commands are matched in order (a command equal to a later step skips the ones between, e.g. when a skill
 * or another route did them); the admissible commands matching the NEXT not-yet-done step get `+weight`, all others
 * 0. Only the next step, not every remaining one: the plan is ordered (take before heat before move), and raising a
 * later step would push mass toward a premature command (a `move` of the object before it is treated) whenever one
 * is admissible. Returns `undefined` (no bias: the policy's own distribution) when the plan is empty or done, the
 * weight is 0, or no admissible command matches the next step (navigation is not in the plan: "go to" steps are left
 * to the policy). Output aligned with `admissible`, entries 0 or `weight`.
 *
 * `match: "roles"` (default) compares {@link roleKey}s instead of role forms: the receptacles and appliances that are
 * not task roles become `*` (`"take {0} from shelf"` → `"take {0} from *"`), so an exemplar from another layout (the
 * object found elsewhere) still raises taking the task object wherever it is; `"command"` needs the same receptacle
 * types, and in the README's ablation it fired on 0.5% of the steps (roles: 9%) and lowered success.
 */
export const planPrior = (
  plan: ReadonlyArray<string>,
  roles: ReadonlyArray<string>,
  history: ReadonlyArray<{ readonly action: string }>,
  admissible: ReadonlyArray<string>,
  weight: number,
  match: "command" | "roles" = "roles"
): Array<number> | undefined => {
  if (weight === 0 || plan.length === 0) return undefined
  const key = match === "roles" ? roleKey : (s: string) => s
  const steps = match === "roles" ? plan.map(roleKey) : plan
  let next = 0
  for (const h of history) {
    if (next >= steps.length) break
    const a = key(ExemplarAgent.abstractAction(h.action, roles))
    const j = steps.indexOf(a, next)
    if (j >= 0) next = j + 1
  }
  if (next >= steps.length) return undefined
  const step = steps[next]!
  let any = false
  const bias = admissible.map((c) => {
    if (key(ExemplarAgent.abstractAction(c, roles)) !== step) return 0
    any = true
    return weight
  })
  return any ? bias : undefined
}

const PREPOSITIONS = new Set(["from", "to", "with", "in", "on", "into", "onto"])

/**
 * A role-form command's verb, prepositions and roles, every other word (a receptacle or appliance type that is not a
 * task role) written `*`: `"take {0} from shelf"` → `"take {0} from *"`, `"heat {0} with microwave"` →
 * `"heat {0} with *"`.
 */
export const roleKey = (roleForm: string): string =>
  roleForm.split(" ").map((w, i) => (i === 0 || PREPOSITIONS.has(w) || w.startsWith("{") ? w : "*")).join(" ")

/**
 * The env the policy sees with memory on: the inner env, with the exemplar plan of the task's template (when the
 * store had one) appended to every observation. Task, actions, rewards and state keys are the inner env's.
 */
class ExemplarEnv implements GroupRollout.TextEnv {
  line: string | undefined = undefined
  constructor(
    readonly inner: GroupRollout.TextEnv,
    readonly planFor: (task: string) => ReadonlyArray<string> | undefined,
    readonly everyStep: boolean
  ) {}
  get task() {
    return this.inner.task
  }
  get spec() {
    return this.inner.spec
  }
  private withLine<R extends { readonly observation: string }>(r: R): R {
    return this.line === undefined ? r : { ...r, observation: `${r.observation}\n${this.line}` }
  }
  reset(options?: Parameters<GroupRollout.TextEnv["reset"]>[0]) {
    const r = this.inner.reset(options)
    const plan = this.planFor(this.inner.task)
    this.line = plan === undefined || plan.length === 0 ? undefined : planLine(plan, ExemplarAgent.taskRoles(this.inner.task))
    return this.withLine(r)
  }
  step(action: string) {
    const r = this.inner.step(action)
    return this.everyStep ? this.withLine(r) : r
  }
  admissibleActions() {
    return this.inner.admissibleActions()
  }
  stateKey() {
    return this.inner.stateKey()
  }
}

/** Primitive env steps of a trajectory (a skill call reports its own in `info.primitiveSteps`). */
const primitiveSteps = (tr: GroupRollout.TextTrajectory): number => {
  let n = 0
  for (const s of tr.steps) {
    const p = s.info?.["primitiveSteps"]
    n += typeof p === "number" ? p : 1
  }
  return n
}

/** The commands a step's action prior raised (from the bias stored with the policy's encoding), for the transcript. */
const priorInfo = (s: GroupRollout.TextStep): { readonly prior?: ReadonlyArray<string> } => {
  const bias = (s.encoded as DrrnPolicy.Encoded | undefined)?.bias
  if (bias === undefined) return {}
  return { prior: s.admissible.filter((_, i) => bias[i]! !== 0) }
}

const usesSkills = (tr: GroupRollout.TextTrajectory) => tr.steps.some((s) => s.action.startsWith("skill "))

/**
 * Run the agent over the stream and write the run directory; returns the summary. Fails with InvalidOptionError
 * for bad options, the run directory's errors, and the trainer's, store's and library's tagged errors.
 */
export const run = (input: Partial<AgentOptions> & { readonly out: string }): Effect.Effect<Summary, Error> =>
  Effect.scoped(Effect.gen(function*() {
    const o = yield* Effect.try({ try: () => validate({ ...defaults, ...input }), catch: (e) => e as Error })
    const log = o.log ?? (() => {})
    const setup = yield* Effect.try({ try: () => TextTasks.setupFor(ENV_ID, { difficulty: o.difficulty, maxSteps: o.maxSteps }), catch: (e) => e as Error })
    const stream = yield* Effect.try({
      try: () => (o.stream === undefined ? Stream.generator(o.seed, Math.round(o.seenFraction * o.steps)) : Stream.fromFile(o.stream)),
      catch: (e) => e as Error
    })
    const train: MultiTurnTrainer.TrainOptions = {
      algo: "gigpo",
      seed: o.seed,
      totalEnvSteps: o.steps, // decisions ≤ primitive steps: the primitive budget below stops the run first
      groupSize: o.groupSize,
      tasksPerBatch: o.tasksPerBatch,
      maxSteps: setup.maxSteps,
      evalEvery: o.evalEvery,
      evalEpisodes: o.evalEpisodes,
      ...setup.trainer, // the env's measured settings, as `autodidact train` (TextHousehold-v0: lr 5e-3, 1.5e-3 when hard, 4 epochs)
      policy: { grid: setup.grid, ...o.policy }
    }
    /** The next batch's stream tasks (fewer when a file stream runs out). */
    const drawBatch = (stepsSoFar: number): Array<Stream.StreamTask> => {
      const out: Array<Stream.StreamTask> = []
      for (let i = 0; i < o.tasksPerBatch; i++) {
        const t = stream.next(stepsSoFar)
        if (t === undefined) break
        out.push(t)
      }
      return out
    }
    // the first batch (the store is empty: no exemplar yet)
    let upcoming = drawBatch(0)
    if (upcoming.length < o.tasksPerBatch) {
      return yield* new InvalidOptionError({ option: "stream", value: o.stream ?? "generator", reason: `holds fewer tasks (${upcoming.length}) than one batch (${o.tasksPerBatch})` })
    }
    const runDir = yield* RunDirectory.open(o.out, {
      command: "household-agent",
      env: ENV_ID,
      algo: "gigpo",
      seed: o.seed,
      totalSteps: o.steps,
      components: { memory: o.memory, skills: o.skills, prm: o.prm },
      stream: stream.description,
      agent: { ...o, log: undefined, out: undefined },
      multiTurn: { ...MultiTurnTrainer.defaults, ...train },
      evalTasks: setup.evalName,
      startedAt: new Date().toISOString()
    }, { overwrite: o.overwrite })
    let started = performance.now()
    const wall = () => (performance.now() - started) / 1000
    const rng = Rng.make([o.seed, 0x40e7])

    // ---- memory: the experience store and the exemplar plans of task templates
    const store = o.memory ? yield* Store.open({ dir: o.memoryDir ?? path.join(o.out, "memory") }) : undefined
    const plans = new Map<string, ReadonlyArray<string>>()
    const planFor = (task: string) => plans.get(ExemplarAgent.abstractTask(task))
    const exemplarLine = o.exemplarLine ?? (o.memoryPrior > 0 ? "none" : "first-step")
    let rolesOf = { task: "", roles: [] as ReadonlyArray<string> }
    /** The exemplar plan's prior for a step (memory on, `memoryPrior > 0`), see {@link planPrior}. */
    const actionPrior: GroupRollout.ActionPrior | undefined = !o.memory || o.memoryPrior === 0 ? undefined : (input) => {
      const plan = planFor(input.task)
      if (plan === undefined) return undefined
      if (rolesOf.task !== input.task) rolesOf = { task: input.task, roles: ExemplarAgent.taskRoles(input.task) }
      return planPrior(plan, rolesOf.roles, input.history ?? [], input.admissible, o.memoryPrior, o.memoryPriorMatch ?? "roles")
    }
    let storedEpisodes = 0
    let exemplarHits = 0

    // ---- skills: the library and the wrapped envs (their options grow as skills are admitted: `addOption`)
    const admitted: Array<string> = []
    const offered = new Set<string>() // the admitted macros' steps
    const library = o.skills ? yield* SkillLibrary.SkillLibrary.makeScoped({ directory: path.join(o.out, "skills") }) : undefined
    const runner = o.skills ? yield* SyncSandbox.make({ timeoutMs: 10_000 }) : undefined
    const wrapped: Array<SkillOptions.SyncSkillOptionsEnv> = []
    if (o.skills) {
      yield* Effect.acquireRelease(
        Effect.sync(() => TextAbstraction.registerActionDescriber(SkillOptions.describeAny(wrapped))),
        (unregister) => Effect.sync(unregister)
      )
    }
    const fullEnv = (): TextEnv.TextEnv => {
      const env = setup.makeEnv()
      if (!TextEnv.isTextEnv(env)) throw new InvalidOptionError({ option: "env", value: ENV_ID, reason: "is not a full text environment" })
      return env
    }
    const makeEnv = (): GroupRollout.TextEnv => {
      let env: GroupRollout.TextEnv = setup.makeEnv()
      if (library !== undefined && runner !== undefined) {
        const w = new SkillOptions.SyncSkillOptionsEnv(fullEnv(), library, [], runner, { maxSkillActions: 2, maskFailedSkills: true })
        wrapped.push(w)
        env = w
      }
      return o.memory && exemplarLine !== "none" ? new ExemplarEnv(env, planFor, exemplarLine === "every-step") : env
    }
    const envs = [makeEnv()]
    const scratch = fullEnv() // task texts of coming tasks, skill verification, replays
    const baselineEnv = setup.makeEnv()

    // ---- PRM
    const tf = o.prm ? (yield* Backend.select({ force: "cpu" })).tf : undefined
    let prm: { readonly mlp: Mlp.Mlp; readonly dim: number } | undefined
    let prmFits = 0
    yield* Effect.addFinalizer(() => Effect.sync(() => prm !== undefined && Mlp.dispose(prm.mlp)))

    // ---- the stream and its metrics
    const metrics = new StreamMetrics()
    const issued = new Map<GroupRollout.Task, Stream.StreamTask>()
    let envSteps = 0
    let decisions = 0
    let updates = 0
    let streamTasks = 0
    let skillCalls = 0
    const batchGroups: Array<GroupRollout.GroupResult<unknown>> = []
    const episodeRows: Array<Parameters<NonNullable<MultiTurnTrainer.Hooks["onEpisode"]>>[0]> = []
    const evaluationRows: Array<MultiTurnTrainer.EvaluationRow> = []
    const flushEvaluations = () => {
      for (const e of evaluationRows.splice(0)) runDir.append({ ...e, globalStep: envSteps, decisions: e.globalStep })
    }
    const successes: Array<{ readonly task: GroupRollout.Task; readonly tr: GroupRollout.TextTrajectory }> = []
    const stepHistory: Array<ProcessReward.StepTarget> = []
    const transcripts: Array<string> = []
    const abort = new AbortController()

    /** Look up exemplar plans for the templates of the coming batch's tasks; how many tasks have one. */
    const lookup = Effect.gen(function*() {
      let hits = 0
      if (store === undefined) return hits
      for (const t of upcoming) {
        const task = Stream.envTask(t)
        scratch.reset({ seed: task.seed, options: task.options })
        const template = ExemplarAgent.abstractTask(scratch.task)
        const found = yield* store.exemplars({ text: template, env: ENV_ID, k: 5 })
        let best: ReadonlyArray<string> | undefined
        for (const h of found) {
          if (h.similarity < 0.9) continue
          const p = ExemplarAgent.planOf(h.trajectory.steps.map((s) => String(s.action)), ExemplarAgent.taskRoles(h.trajectory.task ?? ""))
          if (p.length > 0 && (best === undefined || p.length < best.length)) best = p
        }
        if (best === undefined) plans.delete(template)
        else {
          plans.set(template, best)
          hits++
        }
      }
      return hits
    })
    /** Draw the next batch's tasks and look up their exemplar plans. */
    const prepare = Effect.suspend(() => {
      upcoming = drawBatch(envSteps)
      return lookup
    })

    const prmScores = (task: string, tr: GroupRollout.TextTrajectory): Float64Array => {
      const p = prm!
      const rows = new Float32Array(tr.steps.length * p.dim)
      const actions: Array<string> = []
      tr.steps.forEach((s, t) => {
        rows.set(ProcessReward.featurize(task, Search.stateText(s.observation, actions), s.action, p.dim), t * p.dim)
        actions.push(s.action)
      })
      const logits = Mlp.predict(p.mlp, rows, tr.steps.length)
      return Float64Array.from(logits, (z) => 1 / (1 + Math.exp(-z)))
    }

    /** The PRM's weighted progress `prmWeight · (Q_t − Q_{t−1})` of each step of a group (none before the first fit). */
    const prmInto = o.prmInto
    const prmProgress = (group: GroupRollout.GroupResult<unknown>): Array<Float64Array> | undefined => {
      if (prm === undefined || group.trajectories.length === 0) return undefined
      const q = group.trajectories.map((tr) => prmScores(tr.task, tr))
      return ProcessReward.stepAdvantages(q, group.trajectories.map((tr) => (tr.success ? 1 : 0)), { outcomeWeight: 0, processWeight: o.prmWeight })
    }

    /** After each update: score the batch's stream tasks, write rows, feed memory, skills and the PRM. */
    const afterUpdate = (row: MultiTurnTrainer.UpdateRow) =>
      Effect.gen(function*() {
        updates++
        const groups = batchGroups.splice(0)
        const rows = episodeRows.splice(0)
        let r = 0
        const records: Array<Records.NewRecord> = []
        for (const g of groups) {
          const st = issued.get(g.task)
          issued.delete(g.task)
          for (const tr of g.trajectories) {
            const ep = rows[r++]
            const n = primitiveSteps(tr)
            envSteps += n
            decisions += tr.length
            skillCalls += tr.steps.filter((s) => s.action.startsWith("skill ")).length
            if (ep !== undefined) runDir.append({ ...ep, globalStep: envSteps, decisions: ep.globalStep, envStepsInEpisode: n })
            if (store !== undefined) {
              const steps = tr.steps.map((s) => ({ observation: s.observation, action: s.action, reward: s.reward, terminated: s.terminated, truncated: s.truncated }))
              const t = TextEpisode.make(ENV_ID, steps, { seed: tr.seed, task: tr.task, success: tr.success })
              records.push(Records.trajectory(t, { text: ExemplarAgent.abstractTask(tr.task), task: tr.task }))
            }
            if (tr.success && !usesSkills(tr)) successes.push({ task: g.task, tr })
            if (o.prm) {
              const actions: Array<string> = []
              for (const s of tr.steps) {
                stepHistory.push({ task: tr.task, state: Search.stateText(s.observation, actions), action: s.action, target: tr.success ? 1 : 0 })
                actions.push(s.action)
              }
            }
          }
          if (st === undefined || g.trajectories.length === 0) continue
          // the stream task's outcome: the share of its group that succeeded (scored before anything learns from it
          // except this update, as all trajectories of the batch were rolled out before it)
          const success = g.trajectories.filter((t) => t.success).length / g.trajectories.length
          const baseline = Stream.randomBaseline(baselineEnv, st, rng, setup.maxSteps)
          const snap = metrics.add({ key: st.key, novelty: st.novelty, success, baseline })
          streamTasks++
          runDir.append(streamRow(st, success, baseline, snap, { globalStep: envSteps, wallSeconds: wall() }))
          const first = g.trajectories[0]!
          const plan = o.memory ? planFor(first.task) : undefined
          transcripts.push(TextEpisode.toJsonLine(TextEpisode.make(
            ENV_ID,
            first.steps.map((s) => ({
              observation: s.observation,
              action: s.action,
              reward: s.reward,
              terminated: s.terminated,
              truncated: s.truncated,
              info: {
                ...(plan === undefined ? {} : { exemplar: plan.join(", ") }),
                ...priorInfo(s),
                ...(s.action.startsWith("skill ") ? { skill: s.action, primitiveSteps: s.info?.["primitiveSteps"] ?? 0 } : {})
              }
            })),
            { seed: first.seed, task: Stream.transcriptTask(first.task, st), success: first.success }
          )))
        }
        runDir.append({ ...row, globalStep: envSteps, decisions: row.globalStep })
        flushEvaluations()

        // memory: store the batch, then prepare the next batch's exemplars
        if (store !== undefined && records.length > 0) {
          yield* store.putMany(records)
          storedEpisodes += records.length
        }

        // skills: discover, verify, admit; offer the admitted macros as options
        if (library !== undefined && updates % o.skillEvery === 0 && admitted.length < o.maxSkills && successes.length >= 4) {
          const eps = successes.slice(-60).map(({ task, tr }) => {
            let t = 0
            const acts = tr.steps.map((s) => s.action)
            return Discovery.rollout(scratch, { seed: task.seed, options: { ...task.options } }, () => acts[t++] ?? "look", acts.length)
          }).filter((e) => e.won)
          const trainEps = eps.filter((_, i) => i % 2 === 0)
          const heldOut = eps.filter((_, i) => i % 2 === 1)
          const found = yield* Discovery.discover(library, scratch, trainEps, heldOut, { prefix: `u${updates}-`, top: 4, maxChecks: 10 })
          // a pattern admitted again under a later name (the same steps) is not offered twice
          const fresh = found.filter((d) => d.admitted && !offered.has(d.steps.join(" ; "))).slice(0, o.maxSkills - admitted.length)
          for (const d of fresh) {
            const option = Discovery.macroOption(d.name, d.steps, d.varTypes, { maxGroundings: 3 })
            for (const w of wrapped) w.addOption(option)
            admitted.push(d.name)
            offered.add(d.steps.join(" ; "))
          }
          runDir.append({ kind: "skills", globalStep: envSteps, wallSeconds: wall(), candidates: found.length, admittedNow: fresh.length, admittedSkills: admitted.length, names: fresh.map((d) => d.name) })
          if (fresh.length > 0) log(`update ${updates}: admitted ${fresh.map((d) => d.name).join(", ")}`)
        }

        // PRM: refit on the run's own steps (Monte Carlo targets: the episode's success), newest 4000 steps
        if (tf !== undefined && updates % o.prmEvery === 0 && stepHistory.length > 0) {
          if (stepHistory.length > 4000) stepHistory.splice(0, stepHistory.length - 4000)
          const fit = ProcessRewardModel.train(tf, stepHistory, { epochs: 3, batchSize: 128, learningRate: 2e-3, rng, dim: 1024, hidden: [32] })
          if (prm !== undefined) Mlp.dispose(prm.mlp)
          prm = { mlp: fit.mlp, dim: fit.dim }
          prmFits++
          const positive = stepHistory.filter((s) => s.target > 0).length / stepHistory.length
          runDir.append({ kind: "prm", globalStep: envSteps, wallSeconds: wall(), prmLoss: fit.result.losses[fit.result.losses.length - 1] ?? 0, prmSteps: stepHistory.length, prmPositiveShare: positive })
        }

        const hits = yield* prepare
        if (store !== undefined) {
          exemplarHits += hits
          runDir.append({ kind: "memory", globalStep: envSteps, wallSeconds: wall(), storedEpisodes, exemplarShare: upcoming.length === 0 ? 0 : hits / upcoming.length })
        }
        log(`update ${updates}: ${envSteps}/${o.steps} env steps, stream success ${metrics.snapshot().streamSuccess?.toFixed(3) ?? "-"}`)
        if (envSteps >= o.steps || upcoming.length < o.tasksPerBatch) abort.abort()
      }).pipe(Effect.orDie)

    // the first batch's exemplars: none from a fresh store; a store given by `memoryDir` may hold some already
    if (store !== undefined) exemplarHits += yield* lookup
    started = performance.now() // the trainer's clock starts now: rows of both agree
    const result = yield* MultiTurnTrainer.train(envs, {
      ...train,
      tasks: {
        train: () => {
          const t = upcoming.shift()
          if (t === undefined) throw new InvalidOptionError({ option: "stream", value: "exhausted", reason: "no task left for this batch" })
          const task = Stream.envTask(t)
          issued.set(task, t)
          return task
        },
        eval: setup.evalTask
      }
    }, {
      signal: abort.signal,
      onEpisode: (row) => episodeRows.push(row),
      stepRewards: (group) => {
        batchGroups.push(group)
        const progress = prmInto === "rewards" ? prmProgress(group) : undefined
        return progress === undefined ? undefined : group.trajectories.map((tr, i) => tr.steps.map((s, t) => s.reward + progress[i]![t]!))
      },
      stepAdvantages: (group, advantages) => {
        const progress = prmInto === "advantages" ? prmProgress(group) : undefined
        return progress === undefined ? undefined : advantages.map((a, i) => a.map((v, t) => v + progress[i]![t]!))
      },
      onEvaluation: (row) => evaluationRows.push(row),
      betweenUpdates: afterUpdate,
      ...(actionPrior === undefined ? {} : { actionPrior })
    })
    flushEvaluations()
    yield* DrrnPolicyFile.save(DrrnPolicyFile.policyPath(o.out), result.policy)
    yield* AtomicFile.write(path.join(o.out, "trajectories", "stream.jsonl"), transcripts.join(""))
    const snap = metrics.snapshot()
    const summary: Summary = {
      run: o.out,
      seed: o.seed,
      components: { memory: o.memory, skills: o.skills, prm: o.prm },
      envSteps,
      decisions,
      updates,
      ...summaryFigures(snap, streamTasks),
      evalSuccess: result.final.successRate,
      storedEpisodes,
      exemplarHits,
      admittedSkills: admitted,
      skillCalls,
      prmFits,
      wallSeconds: wall()
    }
    runDir.append({ kind: "summary", ...summary })
    return summary
  }).pipe(Effect.provide(Layer.mergeAll(Sandbox.layer(), Embedder.layerHashed()))))
