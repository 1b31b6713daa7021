/**
 * The `autodidact` command tree as definitions only: names, flags (each with its default and unit), descriptions.
 * No command's implementation is imported here: each leaf's handler is supplied by {@link makeApp}'s `run`, which
 * loads the command's module (`Exec.ts`, `commands/*.ts`) only when that command runs. This module imports
 * `effect/cli` and nothing of the Autodidact packages, so that `--help` stays fast; the few value lists the flags
 * need (algorithm names, env ids) are written here and checked against the packages by a test. The one list that
 * grows at run time, the advantage estimators `train --algo` and `compare --algos` accept (every estimator
 * registered in `@autodidact/optim`, contributed ones included), is passed to {@link makeApp} by its caller
 * ({@link AppOptions}); `main.ts` reads it from the registry only for a `train` or `compare` command line.
 * @since 0.1.0
 */
import type { Effect } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as path from "node:path"
import * as F from "./Flags.js"
import { jsonFlag, optional, required, withDefault } from "./Flags.js"
import { sharedData, workspaceRoot } from "./Paths.js"

/** The CLI's version (what `--version` prints). */
export const version = "0.1.0"

/**
 * `games psro --meta-solver` values: the PSRO meta-solvers (`MetaSolvers.metaSolverNames` of `@autodidact/solvers`,
 * checked by a test), then the JPSRO ones, which need a normal-form game: `ce` / `cce` (max-welfare CE / CCE),
 * `mgce` / `mgcce` (Maximum Gini (C)CE).
 */
export const psroMetaSolvers = ["uniform", "nash", "prd", "alpharank", "shor", "shor-eval", "ce", "cce", "mgce", "mgcce"] as const
/** `games psro --eval-meta-solver` values: the PSRO (not JPSRO) meta-solvers. */
export const psroEvalMetaSolvers = ["uniform", "nash", "prd", "alpharank", "shor", "shor-eval"] as const
/** The JPSRO part of {@link psroMetaSolvers}. */
export const jointPsroMetaSolvers = ["ce", "cce", "mgce", "mgcce"] as const

/** `Solver.algorithms` of `@autodidact/solvers` (checked by a test). */
export const solverAlgorithms = ["cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "pdcfr+", "cfr-br", "vad-cfr", "es-mccfr", "os-mccfr"] as const
/** `games solve --algo` values beyond the tabular {@link solverAlgorithms}: the function-approximation solvers. */
export const deepSolverAlgorithms = ["deep-cfr"] as const
/** The `games solve` deep-cfr flags' defaults (OpenSpiel's `deep_cfr_tf2.py`, as `DeepCfr.resolve`; checked by a test). */
export const deepCfrDefaults = { traversals: 100, trainSteps: 750, batchSize: 2048, hidden: 64, learningRate: 1e-3, lrSchedule: "constant", dedup: false, warmStart: false, engine: "simd" } as const
/** Deep CFR's training engines (`DeepCfr.engineNames`; tfjs through `@autodidact/solvers/tfjs`). */
export const deepCfrEngines = ["simd", "tfjs"] as const
/**
 * The built-in advantage estimators of `@autodidact/optim` that train the text envs (`Advantages.builtinNames`
 * without `gae`, which needs a critic; checked by a test), the default first: what `train --algo` and
 * `compare --algos` accept when {@link makeApp} is given no registry ({@link AppOptions}).
 */
export const textAlgos = ["gigpo", "grpo", "dr-grpo", "rloo", "reinforce++", "rae", "mars", "at-grpo"] as const

/** `train --curriculum` values: `TextTasks.curricula` of `@autodidact/optim` (checked by a test). */
export const textCurricula = ["uniform", "paprika", "webrl", "scaling-inter", "dart", "envgen"] as const
/** `TextTasks.envIds` of `@autodidact/optim` (checked by a test). */
export const textEnvIds = ["TextHousehold-v0", "Sokoban-6x6-1box-v0", "TextFrozenLake-v1"] as const

const optionalString = (name: string, text: string, absent: string) => Flag.String(name).pipe(optional(text, absent))

const endpointFlags = {
  baseUrl: optionalString("base-url", "OpenAI-compatible API root, e.g. http://127.0.0.1:8080/v1", "$AUTODIDACT_LLM_BASE_URL"),
  model: optionalString("model", "Model name", "$AUTODIDACT_LLM_MODEL"),
  apiKey: optionalString("api-key", "Bearer token (not needed on loopback)", "$AUTODIDACT_LLM_API_KEY, then $OPENAI_API_KEY"),
  temperature: F.finite("temperature", { min: 0 }).pipe(optional("Sampling temperature of the policy", "the server's")),
  toolCalling: Flag.Boolean("tool-calling").pipe(withDefault(false, "Ask for the action through an `act` tool call instead of an `Action:` line")),
  fallback: Flag.Literals("fallback", ["first", "random", "invalid", "fail"] as const).pipe(
    withDefault("first", "After an answer that names no admissible action (and one re-ask)")
  )
}

const envFlags = {
  env: Flag.String("env").pipe(withDefault("TextHousehold-v0", `Text environment: ${textEnvIds.join(", ")}`)),
  difficulty: optionalString("difficulty", "TextHousehold-v0: easy or default", "default"),
  split: optionalString("split", "TextHousehold-v0: evaluation split (unseen, seen, train)", "unseen"),
  maxSteps: F.positiveInt("max-steps").pipe(optional("Step limit per episode", "the env's setup", "steps")),
  concurrency: F.positiveInt("concurrency").pipe(withDefault(4, "Episodes played at once (requests in flight)", "episodes"))
}

const agentEvalFlags = {
  ...endpointFlags,
  ...envFlags,
  episodes: F.positiveInt("episodes").pipe(withDefault(20, "Evaluation tasks to play (task k uses the env's evaluation seed k)", "episodes")),
  library: optionalString("library", "An experience library (library.json written by `agent train`) to put in the prompt", "none"),
  json: jsonFlag
}

const agentTrainFlags = {
  ...endpointFlags,
  ...envFlags,
  method: Flag.Literals("method", ["training-free-grpo"] as const).pipe(withDefault("training-free-grpo", "Training-free optimizer")),
  epochs: F.positiveInt("epochs").pipe(withDefault(3, "Passes over the training tasks", "epochs")),
  groupSize: F.int("group-size", { min: 2 }).pipe(withDefault(5, "Rollouts per task (the group)", "rollouts")),
  tasks: F.positiveInt("tasks").pipe(withDefault(10, "Training tasks (drawn from the env's training split)", "tasks")),
  evalEpisodes: F.nonNegativeInt("eval-episodes").pipe(withDefault(0, "Evaluation tasks after each epoch (0: none)", "episodes")),
  seed: F.seed().pipe(withDefault(1, "Seed of task draws and sampling")),
  run: optionalString("run", "Run directory", "runs/agent-<env>-<seed>"),
  overwrite: Flag.Boolean("overwrite").pipe(withDefault(false, "Replace an existing run directory")),
  json: jsonFlag
}

const benchEnvsFlags = {
  steps: F.positiveInt("steps").pipe(withDefault(1_000_000, "Environment steps timed per row", "steps")),
  env: Flag.String("env").pipe(optional("Only this env id", "every registered env")),
  async: Flag.Boolean("async").pipe(withDefault(false, "Also time the worker-thread vector env")),
  seed: F.seed().pipe(withDefault(0, "Seed of the environments")),
  batchEnvs: F.positiveInt("batch-envs").pipe(withDefault(1024, "Sub-envs of the batched (structure-of-arrays) rows", "n")),
  repeats: F.positiveInt("repeats").pipe(withDefault(3, "Runs per row (the table shows the median)", "n")),
  noPython: Flag.Boolean("no-python").pipe(withDefault(false, "Skip the Python (Gymnasium transcription) baseline")),
  json: jsonFlag
}

const benchKernelsFlags = {
  quick: Flag.Boolean("quick").pipe(withDefault(false, "Small sizes (seconds instead of minutes)")),
  backends: Flag.String("backends").pipe(optional("Comma-separated: typed-array,wasm-simd,wasm,cpu,tensorflow,onnxruntime", "all available")),
  kernels: Flag.String("kernels").pipe(optional("Comma-separated kernel name prefixes, e.g. gae,topk", "all kernels")),
  noNumpy: Flag.Boolean("no-numpy").pipe(withDefault(false, "Skip the NumPy baseline")),
  json: jsonFlag
}

/** A comma-separated list of seeds (`"1,2,3"`), or `"none"` when `allowNone` (checked by {@link seedList}). */
const seedListFlag = (name: string, fallback: string, text: string, allowNone = false) =>
  Flag.String(name).pipe(
    Flag.filter(
      (value: string) => (allowNone && value === "none") || (commaList(value).length > 0 && commaList(value).every((s) => /^\d+$/.test(s) && Number(s) <= 2 ** 32 - 1)),
      () => `comma-separated seeds (integers 0..4294967295)${allowNone ? ", or none" : ""}`
    ),
    withDefault(fallback, text)
  )

/** The seeds of a {@link seedListFlag} value (`"none"` → none). */
export const seedList = (value: string): Array<number> => (value === "none" ? [] : commaList(value).map(Number))

const benchPpoFlags = {
  seeds: seedListFlag("seeds", "1,2,3,4,5", "Seeds of the measured engine's runs (comma-separated)"),
  engine: Flag.Literals("engine", ["wasm-simd", "typed-array"] as const).pipe(withDefault("wasm-simd", "Actor-critic engine measured")),
  baselineSeeds: seedListFlag("baseline-seeds", "1", "Seeds on which the previous engine (typed-array) also runs, for the ratio column (none: skip)", true),
  noTfjs: Flag.Boolean("no-tfjs").pipe(withDefault(false, "Leave TensorFlow.js out of the network-pass rows")),
  json: jsonFlag
}

const benchSelfplayFlags = {
  seeds: F.positiveInt("seeds").pipe(withDefault(3, "Seeds per configuration")),
  sections: Flag.String("sections").pipe(withDefault("speed,kuhn,leduc,ttt,ablation", "Sections to run (comma-separated)")),
  kuhnSteps: F.positiveInt("kuhn-steps").pipe(withDefault(2_000_000, "Kuhn budget", "decisions")),
  leducSteps: F.positiveInt("leduc-steps").pipe(withDefault(10_000_000, "Leduc budget", "decisions")),
  tttSteps: F.positiveInt("ttt-steps").pipe(withDefault(2_000_000, "Tic-tac-toe budget", "decisions")),
  ablationSteps: F.positiveInt("ablation-steps").pipe(withDefault(1_000_000, "Kuhn budget of each ablation run", "decisions")),
  ablationTttSteps: F.positiveInt("ablation-ttt-steps").pipe(withDefault(1_000_000, "Tic-tac-toe budget of each ablation run", "decisions")),
  drrnSteps: F.positiveInt("drrn-steps").pipe(withDefault(1_000_000, "Kuhn budget of the drrn section (DRRN and tabular alike)", "decisions")),
  drrnTttSteps: F.positiveInt("drrn-ttt-steps").pipe(withDefault(500_000, "Tic-tac-toe budget of the drrn section", "decisions")),
  json: jsonFlag
}

const benchSolversFlags = {
  games: Flag.String("games").pipe(
    withDefault("kuhn_poker;leduc_poker;liars_dice(players=2,numdice=1,dice_sides=6);kuhn_poker(players=3)", "Games (GameRegistry names, separated by ;)")
  ),
  algos: Flag.String("algos").pipe(withDefault("all", "Algorithms (comma-separated Solver.algorithms names, or all)")),
  iterations: Flag.String("iterations").pipe(
    Flag.filter((v: string) => commaList(v).length > 0 && commaList(v).every((s) => /^\d+$/.test(s) && Number(s) > 0), () => "comma-separated positive integers"),
    withDefault("10,100,1000,10000", "Checkpoints: NashConv is measured after each of these iteration counts")
  ),
  maxSeconds: F.finite("max-seconds", { min: 0 }).pipe(withDefault(120, "Solver seconds allowed per game x algorithm (later checkpoints are left out)", "seconds")),
  json: jsonFlag
}

const benchReplayFlags = {
  quick: Flag.Boolean("quick").pipe(withDefault(false, "Capacity 100k only, fewer calls (seconds)")),
  noNumpy: Flag.Boolean("no-numpy").pipe(withDefault(false, "Skip the NumPy baseline")),
  json: jsonFlag
}

const benchMultiturnFlags = {
  steps: F.positiveInt("steps").pipe(withDefault(30_000, "Environment steps per training run", "steps")),
  repeats: F.positiveInt("repeats").pipe(withDefault(3, "Runs of each implementation, alternating (the median is reported)", "runs")),
  evalEpisodes: F.positiveInt("eval-episodes").pipe(withDefault(100, "Unseen tasks evaluated after each run", "episodes")),
  seed: F.seed().pipe(withDefault(1, "Seed of every run")),
  json: jsonFlag
}

const benchSearchFlags = {
  quick: Flag.Boolean("quick").pipe(withDefault(false, "3,000 env steps per MCTS run and one repeat (seconds)")),
  repeats: F.positiveInt("repeats").pipe(withDefault(3, "Runs per figure (the table shows the median)", "n")),
  sokobanRun: optionalString(
    "sokoban-run",
    "Instead: levels solved at equal env-step budgets on Sokoban-6x6-1box-v0 and Boxoban by this `train --env Sokoban-6x6-1box-v0` run's DRRN alone vs best-first search with a value head fitted on its rollouts (search SokobanExperiment)",
    "the speed tables"
  ),
  levels: F.nonNegativeInt("levels").pipe(withDefault(100, "--sokoban-run: Sokoban-6x6-1box-v0 levels (seeds 10^6 + k)", "levels")),
  boxobanLevels: F.nonNegativeInt("boxoban-levels").pipe(withDefault(50, "--sokoban-run: first Boxoban levels of --boxoban", "levels")),
  boxoban: Flag.String("boxoban").pipe(withDefault("../shared/data/boxoban/unfiltered/valid/000.txt", "--sokoban-run: Boxoban level file")),
  budgets: Flag.String("budgets").pipe(withDefault("50,200,1000,5000", "--sokoban-run: comma-separated env-step budgets per level")),
  valueEpisodes: F.positiveInt("value-episodes").pipe(withDefault(2000, "--sokoban-run: sampled-policy episodes the value head is fitted on", "episodes")),
  json: jsonFlag
}

const benchArchiveFlags = {
  seeds: Flag.String("seeds").pipe(withDefault("1,2,3", "Comma-separated seeds (each: search seed, trainer seed of every node, search tasks)")),
  trainSteps: F.positiveInt("train-steps").pipe(withDefault(15_000, "Env steps of GiGPO training per configuration (node)", "steps")),
  budget: F.positiveInt("budget").pipe(withDefault(170_000, "Env steps per seed and method: training plus search evaluations", "steps")),
  difficulty: Flag.Literals("difficulty", ["easy", "default", "hard"] as const).pipe(withDefault("easy", "TextHousehold-v0 difficulty")),
  maxSteps: F.positiveInt("max-steps").pipe(withDefault(25, "Step limit per episode", "steps")),
  searchTasks: F.positiveInt("search-tasks").pipe(withDefault(64, "Unseen tasks the archive evaluates nodes on (DGM/random: all of them per node)", "tasks")),
  batch: F.positiveInt("batch").pipe(withDefault(8, "HGM's evaluation batch", "tasks")),
  heldOut: F.positiveInt("held-out").pipe(withDefault(200, "Held-out unseen tasks every best and the default are scored on", "tasks")),
  fullBudgetDefault: Flag.Boolean("full-budget-default").pipe(withDefault(false, "Also score the default configuration trained for the whole budget")),
  out: optionalString("out", "Directory for rows.jsonl and the archive files; rows already there are not rerun", "nothing written"),
  json: jsonFlag
}

const benchDeepCfrFlags = {
  iterations: F.positiveInt("iterations").pipe(withDefault(300, "SD-CFR iterations at most (stops earlier at the target)", "iterations")),
  target: F.finite("target", { min: 0 }).pipe(withDefault(0.1, "NashConv to reach", "utility units")),
  seed: F.seed().pipe(withDefault(0, "Seed of SD-CFR")),
  quick: Flag.Boolean("quick").pipe(withDefault(false, "Kuhn poker with a small network instead of Leduc (seconds)")),
  engine: Flag.Literals("engine", deepCfrEngines).pipe(
    withDefault("simd", "Where the advantage networks train; tfjs (TensorFlow.js: tfjs-node when installed, else wasm, else cpu) runs after a simd run, the baseline")
  ),
  maxSeconds: F.finite("max-seconds", { above: 0 }).pipe(optional("Stop each engine's run after this much solver time", "no limit", "seconds")),
  json: jsonFlag
}

const benchCliFlags = {
  runs: F.positiveInt("runs").pipe(withDefault(5, "Runs of each command (the median is reported)", "runs")),
  json: jsonFlag
}

/** The names of a comma-separated flag value (`"grpo, gigpo"` → `["grpo", "gigpo"]`). */
export const commaList = (value: string): Array<string> => value.split(",").map((s) => s.trim()).filter((s) => s.length > 0)

const compareFlags = (estimators: ReadonlyArray<string>) => ({
  envs: Flag.String("envs").pipe(withDefault("TextHousehold-v0,Sokoban-6x6-1box-v0", "Comma-separated text env ids")),
  algos: Flag.String("algos").pipe(
    Flag.filter(
      (value: string) => commaList(value).length > 0 && commaList(value).every((a) => estimators.includes(a)),
      () => `comma-separated advantage estimators, each one of ${estimators.join(", ")}`
    ),
    withDefault("grpo,gigpo,rloo", `Comma-separated advantage estimators (registered in @autodidact/optim): ${estimators.join(", ")}`)
  ),
  seeds: F.positiveInt("seeds").pipe(withDefault(3, "Seeds 1..N per (env, algo)", "seeds")),
  steps: F.positiveInt("steps").pipe(withDefault(100_000, "Environment steps per run", "steps")),
  groupSize: F.int("group-size", { min: 2 }).pipe(withDefault(8, "Trajectories per task (GRPO/GiGPO group size)", "trajectories")),
  evalEpisodes: F.positiveInt("eval-episodes").pipe(withDefault(100, "Tasks of each evaluation (every 10 updates and at the end of each run)", "episodes")),
  difficulty: Flag.Literals("difficulty", ["default", "easy", "hard"] as const).pipe(withDefault("default", "TextHousehold-v0: room size and distractors (hard: a house of rooms joined by doorways, objects hidden)")),
  out: Flag.String("out").pipe(required("Directory for the runs (training), compare.md and the SVG plots")),
  runs: Flag.String("runs").pipe(
    optional(
      "Comma-separated run directories written by `autodidact train` (config.json + metrics.jsonl) to compare without training, grouped into variants by algorithm and non-default trainer options (--envs, --algos, --seeds, --steps, --group-size, --eval-episodes, --difficulty are then ignored)",
      "train the --envs x --algos x --seeds grid"
    )
  ),
  at: F.positiveInt("at").pipe(optional("With --runs: env step the success rates are read at (each run's last evaluation at or before it)", "the smallest totalSteps of the runs", "steps")),
  window: F.positiveInt("window").pipe(withDefault(1, "With --runs: success at --at is the mean of this many evaluations ending there (smooths single evaluations)", "evaluations")),
  threshold: F.finite("threshold", { min: 0, max: 1 }).pipe(withDefault(0.9, "With --runs: success rate whose first crossing (env steps) is reported per seed")),
  baseline: Flag.String("baseline").pipe(optional("With --runs: variant label the others are compared with, paired by seed (e.g. gigpo, \"gigpo + paprika\")", "gigpo when present, else the first run's variant")),
  json: jsonFlag
})

const hostFlag = (text: string) => Flag.String("host").pipe(withDefault("127.0.0.1", text))

const dashboardFlags = {
  runs: Flag.String("runs").pipe(withDefault("runs", "Runs directory to show (each run: config.json + metrics.jsonl)")),
  port: F.port().pipe(withDefault(6060, "Port to listen on (0: any free port)")),
  host: hostFlag("Address to bind (no authentication: keep it local)")
}

const evalFlags = {
  run: Flag.String("run").pipe(required("Run directory written by `autodidact train`")),
  episodes: F.positiveInt("episodes").pipe(withDefault(100, "Episodes to play", "episodes")),
  seed: F.seed().pipe(withDefault(10_000, "Seed of the first evaluation episode (episode k uses seed + k)")),
  split: Flag.String("split").pipe(optional("TextHousehold-v0: evaluation split (unseen, seen, train)", "unseen")),
  taskTypes: Flag.String("task-types").pipe(
    optional("TextHousehold-v0: comma-separated task families (e.g. pick_two_obj_and_place), or `all`: --episodes tasks of each family, one row per family", "the evaluation tasks of every family, mixed")
  ),
  sample: Flag.Boolean("sample").pipe(withDefault(false, "Sample actions from the policy instead of taking the argmax")),
  against: Flag.Literals("against", ["random", "cfr", "minimax"] as const).pipe(
    optional("A `selfplay` run: play against uniform random, the CFR+ equilibrium, or alpha-beta minimax (win/draw/loss with Wilson 95% intervals, exploitability where computable)", "none (other runs)")
  ),
  depth: F.positiveInt("depth").pipe(optional("--against minimax: search depth in plies", "the whole game for tic_tac_toe, 4 otherwise", "plies")),
  search: Flag.Literals("search", ["mcts"] as const).pipe(
    optional("Text envs: search before every step with MCTS (PUCT; prior and greedy-rollout value from the run's DRRN policy), reported beside the policy alone", "none: the policy acts alone")
  ),
  budget: F.positiveInt("budget").pipe(withDefault(100, "--search: env steps each decision's search may spend", "env steps")),
  rollout: Flag.Literals("rollout", ["sample", "greedy"] as const).pipe(withDefault("sample", "--search: leaf value from rollouts that sample the DRRN policy or take its argmax")),
  rolloutDepth: F.positiveInt("rollout-depth").pipe(optional("--search: steps per rollout at most", "the env's step limit", "env steps")),
  json: jsonFlag
}

/** `selfplay --game` values the issue names (negotiation and connect_four are loaded from the registry when present). */
export const selfplayGames = ["kuhn_poker", "leduc_poker", "tic_tac_toe", "liars_dice", "negotiation", "connect_four"] as const
/** `selfplay --algo` values: `spiral` is SPIRAL's role-conditioned advantage estimation (`rae` of optim). */
export const selfplayAlgos = ["spiral", "mars", "at-grpo", "grpo"] as const

const selfplayFlags = {
  game: Flag.String("game").pipe(
    required(`Game (OpenSpiel name, parameters allowed), or several comma-separated ones mixed in each batch: ${selfplayGames.join(", ")}`)
  ),
  algo: Flag.Literals("algo", selfplayAlgos).pipe(withDefault("spiral", "Advantage estimator: spiral (role-conditioned EMA baseline), mars, at-grpo, grpo")),
  policy: Flag.Literals("policy", ["tabular", "drrn"] as const).pipe(withDefault("tabular", "Policy class: tabular softmax over information states, or the DRRN text policy over the games' text views")),
  seed: F.seed().pipe(withDefault(1, "Seed of everything (chance, sampling)")),
  totalSteps: F.positiveInt("total-steps").pipe(withDefault(2_000_000, "Budget of player decisions (every seat)", "steps")),
  out: Flag.String("out").pipe(required("Run directory to write (config.json, metrics.jsonl, checkpoints/selfplay.json, policy.json)")),
  episodesPerUpdate: F.positiveInt("episodes-per-update").pipe(withDefault(256, "Episodes per update (the batch)", "episodes")),
  learningRate: F.finite("learning-rate", { above: 0 }).pipe(withDefault(0.05, "η of the MMD / policy-gradient step")),
  magnet: F.finite("magnet", { min: 0 }).pipe(withDefault(0.02, "α, strength of MMD's uniform magnet (0: unregularized)")),
  unsampled: Flag.Literals("unsampled", ["baseline", "mean"] as const).pipe(
    withDefault("baseline", "q̂ of an action not taken at a state in the batch: the estimator's baseline (0) or the state's mean")
  ),
  magnetEvery: F.nonNegativeInt("magnet-every").pipe(withDefault(0, "Updates between moves of MMD's magnet to the current policy (0: fixed uniform magnet)", "updates")),
  critic: F.finite("critic", { min: 0, below: 1 }).pipe(withDefault(0, "β of the tabular per-action critic (moving average of advantages across updates; 0: off)")),
  fullStepVisits: F.positiveInt("full-step-visits").pipe(withDefault(1, "Visits in a batch from which a state takes the full step (fewer: proportionally smaller)", "visits")),
  update: Flag.Literals("update", ["mmd", "pg"] as const).pipe(withDefault("mmd", "Update rule: magnetic mirror descent or softmax policy gradient")),
  opponents: Flag.Literals("opponents", ["latest", "uniform", "winrate"] as const).pipe(
    withDefault("latest", "Opponents: the latest policy in every seat, or past checkpoints sampled uniformly or by win rate")
  ),
  sharing: Flag.Literals("sharing", ["shared", "per-seat"] as const).pipe(withDefault("shared", "One policy in every seat or one per seat")),
  evalPolicy: Flag.Literals("eval-policy", ["average", "current"] as const).pipe(withDefault("average", "Policy evaluated and saved: the average of the iterates or the last one")),
  evalEvery: F.nonNegativeInt("eval-every").pipe(withDefault(20, "Updates between evaluations (NashConv, matches); 0: at the end only", "updates")),
  resume: Flag.Boolean("resume").pipe(withDefault(false, "Continue the run in --out from checkpoints/selfplay.json (--total-steps may grow)")),
  overwrite: Flag.Boolean("overwrite").pipe(withDefault(false, "Replace an existing run in --out")),
  json: jsonFlag
}

const exportFlags = {
  from: Flag.String("from").pipe(required("A gateway recording directory, a run directory with trajectories/, or a JSONL file")),
  format: Flag.Literals("format", ["chat", "verl"] as const).pipe(required("chat: {messages, tools} rows; verl: one row per step with reward and advantage")),
  out: Flag.String("out").pipe(required("JSONL file to write (atomically)")),
  per: Flag.Literals("per", ["episode", "turn"] as const).pipe(withDefault("episode", "chat: one row per episode (its last turn's full context) or per model call")),
  advantage: Flag.Literals("advantage", ["recorded", "grpo"] as const).pipe(
    withDefault("recorded", "verl: recorded step advantages, or episode-level GRPO advantages within each group")
  ),
  json: jsonFlag
}

const gamesSolveFlags = {
  game: Flag.String("game").pipe(required("Game name as OpenSpiel spells it, e.g. kuhn_poker, leduc_poker, kuhn_poker(players=3)")),
  algo: Flag.Literals("algo", [...solverAlgorithms, ...deepSolverAlgorithms]).pipe(withDefault("cfr+", "Solver")),
  iterations: F.positiveInt("iterations").pipe(withDefault(1000, "Most iterations to run", "iterations")),
  traversals: F.positiveInt("traversals").pipe(withDefault(deepCfrDefaults.traversals, "deep-cfr: external-sampling traversals per player per iteration", "traversals")),
  trainSteps: F.positiveInt("train-steps").pipe(withDefault(deepCfrDefaults.trainSteps, "deep-cfr: Adam steps per advantage-network training", "steps")),
  batchSize: F.positiveInt("batch-size").pipe(withDefault(deepCfrDefaults.batchSize, "deep-cfr: mini-batch rows", "rows")),
  hidden: F.positiveInt("hidden").pipe(withDefault(deepCfrDefaults.hidden, "deep-cfr: units of each of the two hidden layers", "units")),
  learningRate: F.finite("learning-rate", { above: 0 }).pipe(withDefault(deepCfrDefaults.learningRate, "deep-cfr: Adam learning rate")),
  lrSchedule: Flag.Literals("lr-schedule", ["constant", "linear"] as const).pipe(withDefault(deepCfrDefaults.lrSchedule, "deep-cfr: learning rate within one training (linear: decay to 0)")),
  dedup: Flag.Boolean("dedup").pipe(withDefault(deepCfrDefaults.dedup, "deep-cfr: train on the memory's distinct information-state rows (summed weights, weighted-mean regrets)")),
  warmStart: Flag.Boolean("warm-start").pipe(withDefault(deepCfrDefaults.warmStart, "deep-cfr: start each advantage network from the previous iteration's instead of from scratch")),
  engine: Flag.Literals("engine", deepCfrEngines).pipe(withDefault(deepCfrDefaults.engine, "deep-cfr: where the advantage networks train (tfjs: TensorFlow.js, tfjs-node when installed, else wasm, else cpu)")),
  reportEvery: F.positiveInt("report-every").pipe(optional("Report NashConv every N iterations", "iterations / 10", "iterations")),
  targetNashConv: F.finite("target-nashconv", { min: 0 }).pipe(
    optional("Stop at the first iteration whose NashConv (checked after every iteration) is at or below this", "none (run all --iterations)", "utility units")
  ),
  seed: F.seed().pipe(withDefault(0, "Seed of the sampling (MCCFR) solvers")),
  save: Flag.String("save").pipe(optional("Write the solver state here at the end (atomic)", "not saved")),
  resume: Flag.String("resume").pipe(optional("Continue from a saved solver state", "a fresh start")),
  out: Flag.String("out").pipe(
    optional("Run directory to write: config.json and metrics.jsonl with a NashConv/exploitability row per report (shown by `autodidact dashboard`)", "none")
  ),
  json: jsonFlag
}

const gamesPsroFlags = {
  game: Flag.String("game").pipe(required("Game name as OpenSpiel spells it, e.g. kuhn_poker, leduc_poker, matrix_rps")),
  metaSolver: Flag.Literals("meta-solver", psroMetaSolvers).pipe(
    withDefault("nash", "Meta-solver: PSRO's (extensive-form or matrix games) or JPSRO's ce/cce/mgce/mgcce (matrix games)")
  ),
  evalMetaSolver: Flag.Literals("eval-meta-solver", psroEvalMetaSolvers).pipe(
    optional(
      "Meta-solver whose meta-strategy is reported (NashConv, policy.json) while best responses answer --meta-solver's (SHOR-PSRO's evaluation-time solver; PSRO only)",
      "shor-eval with --meta-solver shor, otherwise the training meta-strategy"
    )
  ),
  iterations: F.positiveInt("iterations").pipe(withDefault(20, "Most PSRO iterations", "iterations")),
  out: Flag.String("out").pipe(
    optional("Run directory to write: config.json, metrics.jsonl with a NashConv (or (C)CE gap) row per iteration, policy.json (PSRO's final mixture)", "none")
  ),
  json: jsonFlag
}

const gamesRankFlags = {
  population: Flag.String("population").pipe(
    required("Directory of tabular policies (*.json as `games solve --out` writes policy.json; searched one level down) of one two-player game")
  ),
  alpha: F.finite("alpha", { min: 0 }).pipe(optional("α-Rank selection intensity", "the infinite-α limit")),
  populationSize: F.int("population-size", { min: 2 }).pipe(withDefault(50, "α-Rank population size m")),
  json: jsonFlag
}

const gatewayFlags = {
  upstream: Flag.String("upstream").pipe(required("Upstream OpenAI-compatible API root, e.g. http://127.0.0.1:8080/v1")),
  port: F.port().pipe(withDefault(4000, "Port to listen on (0: any free port)")),
  store: Flag.String("store").pipe(
    withDefault(
      "gateway-data",
      "Where to record: a directory (JSONL per session), pglite:DIR (experience store on PGlite) or postgres://... (experience store on PostgreSQL)"
    )
  ),
  host: hostFlag("Address to bind (no authentication: keep it on loopback unless you mean it)"),
  upstreamApiKey: Flag.String("upstream-api-key").pipe(optional("Replace the client's API key toward the upstream", "the client's key")),
  maxBodyBytes: F.positiveInt("max-body-bytes").pipe(withDefault(8 * 1024 * 1024, "Largest accepted request body (413 above)", "bytes"))
}

const reportFlags = {
  runs: Flag.String("runs").pipe(withDefault("runs", "Runs directory to report on")),
  out: Flag.String("out").pipe(withDefault("report.html", "File to write")),
  format: Flag.Literals("format", ["html", "png"] as const).pipe(withDefault("html", "html (self-contained) or png (needs Chromium)")),
  smoothing: F.finite("smoothing", { min: 0, below: 1 }).pipe(withDefault(0.6, "EMA weight of the curves")),
  json: jsonFlag
}

const runnerFlags = {
  cluster: Flag.String("cluster").pipe(required("PostgreSQL URL of the cluster (postgres://user@host:port/database)")),
  port: F.port().pipe(withDefault(34431, "Port to listen on for other cluster members")),
  host: hostFlag("Address other members reach this runner at")
}

const serveEnvFlags = {
  env: Flag.String("env").pipe(required("Registered text environment id, e.g. TextHousehold-v0, TextFrozenLake-v1, Sokoban-6x6-1box-v0")),
  port: F.port().pipe(withDefault(36001, "Port to listen on (0: any free port)")),
  host: hostFlag("Address to bind (no authentication: keep it on loopback unless you mean it)"),
  idleTtl: F.finite("idle-ttl", { above: 0 }).pipe(withDefault(600, "Time without a request after which a session is closed", "seconds")),
  maxSessions: F.positiveInt("max-sessions").pipe(withDefault(1024, "Most sessions alive at once", "sessions"))
}

const libraryFlag = Flag.String("library").pipe(
  withDefault("skills", "Skill library directory (<name>.js + <name>.json per skill; created on first write)")
)
const skillName = Argument.String("name").pipe(Argument.withDescription("Skill name"))

const skillsListFlags = { library: libraryFlag, json: jsonFlag }
const skillsShowFlags = {
  name: skillName,
  version: F.positiveInt("version").pipe(optional("Show this version", "the active one")),
  library: libraryFlag,
  json: jsonFlag
}
const skillsAdmitFlags = {
  spec: Flag.String("spec").pipe(required("Skill spec JSON: name, description, parameters, result, tests, provenance, [source, entry, tags]")),
  source: Flag.String("source").pipe(optional("JavaScript file defining `function main(args)` (replaces the spec's `source`)", "the spec's source")),
  library: libraryFlag,
  json: jsonFlag
}
const skillsCheckFlags = { library: libraryFlag, json: jsonFlag }
const skillsRetrieveFlags = {
  query: Argument.String("query").pipe(Argument.withDescription("What the skill should do, in words")),
  k: F.positiveInt("k").pipe(withDefault(5, "Number of skills to return", "skills")),
  tag: Flag.String("tag").pipe(Flag.atLeast(0), Flag.withDescription("Only skills with this tag (repeatable: all required) (default: none)")),
  library: libraryFlag,
  json: jsonFlag
}
const skillsCallFlags = {
  name: skillName,
  args: Flag.String("args").pipe(withDefault("{}", "The skill's argument, as JSON")),
  host: Flag.String("host").pipe(
    withDefault("{}", "Scripted host functions, as JSON: {\"act\": [reply1, reply2], \"observe\": [...]}; calls past the script fail")
  ),
  library: libraryFlag,
  json: jsonFlag
}
const skillsRollbackFlags = {
  name: skillName,
  version: F.positiveInt("version").pipe(required("Version to make active")),
  library: libraryFlag,
  json: jsonFlag
}
const skillsRemoveFlags = { name: skillName, library: libraryFlag, json: jsonFlag }
const skillsDiscoverFlags = {
  difficulty: Flag.Literals("difficulty", ["easy", "default", "hard"] as const).pipe(withDefault("easy", "TextHousehold-v0 difficulty")),
  train: F.positiveInt("train").pipe(withDefault(100, "Expert episodes (train split) to mine", "episodes")),
  heldOut: F.positiveInt("held-out").pipe(withDefault(30, "Expert episodes (seen split) to verify on", "episodes")),
  top: F.positiveInt("top").pipe(withDefault(8, "Most frequent patterns to try", "patterns")),
  maxN: F.int("max-n", { min: 2 }).pipe(withDefault(4, "Longest n-gram", "actions")),
  window: F.positiveInt("window").pipe(withDefault(1, "With --runs: success at --at is the mean of this many evaluations ending there (smooths single evaluations)", "evaluations")),
  threshold: F.finite("threshold", { min: 0, max: 1 }).pipe(withDefault(0.8, "Held-out success rate a macro needs")),
  library: libraryFlag,
  json: jsonFlag
}

const sokobanSolveFlags = {
  levels: Flag.String("levels").pipe(required("Boxoban-format level file (`; N` then 10 rows per level)")),
  limit: F.positiveInt("limit").pipe(withDefault(1000, "Solve at most the first N levels", "levels")),
  maxNodes: F.positiveInt("max-nodes").pipe(withDefault(1_000_000, "Node budget per level", "search nodes")),
  json: jsonFlag
}

const startFlags = {
  seed: F.seed().pipe(withDefault(1, "Training seed")),
  out: Flag.String("out").pipe(withDefault(path.join(workspaceRoot, "runs", "start"), "Run directory (a previous run there is moved to <out>.prev-<timestamp>)")),
  levels: Flag.String("levels").pipe(withDefault(sharedData("boxoban", "unfiltered", "valid", "000.txt"), "Boxoban level file")),
  json: jsonFlag
}

const trainFlags = (estimators: ReadonlyArray<string>) => ({
  env: Flag.String("env").pipe(withDefault("CartPole-v1", "Registered environment id")),
  algo: Flag.Literals("algo", ["ppo", ...estimators.filter((a) => a !== "ppo")]).pipe(
    optional(
      "Algorithm: ppo for Box/Discrete envs, or for the text envs an advantage estimator registered in @autodidact/optim (Advantages.register)",
      "ppo for CartPole and other Box envs, gigpo for text envs"
    )
  ),
  seed: F.seed().pipe(withDefault(1, "Seed of everything (envs, init, sampling)")),
  totalSteps: F.positiveInt("total-steps").pipe(withDefault(500_000, "Environment steps budget", "steps")),
  out: Flag.String("out").pipe(required("Run directory to write (config.json, metrics.jsonl, checkpoints/)")),
  untilSolved: Flag.Boolean("until-solved").pipe(withDefault(false, "Stop once the mean return of the last 100 episodes reaches the env's threshold")),
  numEnvs: F.int("num-envs", { min: 1, max: 4096 }).pipe(withDefault(4, "Parallel environments", "envs")),
  resume: Flag.Boolean("resume").pipe(
    withDefault(false, "Continue the run in --out from its checkpoint (metrics rows after the checkpoint are dropped; --seed, --env, --num-envs must match the run's)")
  ),
  resumeOverride: Flag.Boolean("resume-override").pipe(
    withDefault(false, "With --resume: continue even though --seed, --env or --num-envs differ from the run's (recorded in config.json)")
  ),
  overwrite: Flag.Boolean("overwrite").pipe(withDefault(false, "Replace an existing run in --out")),
  saveTrajectories: F.nonNegativeInt("save-trajectories").pipe(
    withDefault(0, "After training, play N greedy episodes and write them to <out>/trajectories/eval.jsonl (for the dashboard's episode viewer)", "episodes")
  ),
  groupSize: F.int("group-size", { min: 2 }).pipe(withDefault(8, "Text envs: trajectories per task (GRPO/GiGPO group size)", "trajectories")),
  evalEpisodes: F.positiveInt("eval-episodes").pipe(withDefault(100, "Text envs: tasks of each evaluation (every 10 updates and at the end)", "episodes")),
  skills: Flag.String("skills").pipe(
    optional(
      "TextHousehold-v0: a skill library directory whose discovered macros become options (`autodidact skills discover`); steps then count decisions",
      "no skills"
    )
  ),
  maxSkillActions: F.positiveInt("max-skill-actions").pipe(withDefault(2, "With --skills: skill commands offered per state", "commands")),
  difficulty: Flag.Literals("difficulty", ["default", "easy", "hard"] as const).pipe(withDefault("default", "TextHousehold-v0: room size and distractors (hard: a house of rooms joined by doorways, objects hidden)")),
  curriculum: Flag.Literals("curriculum", textCurricula).pipe(
    optional(
      "Text envs: task sampler (optim TaskSamplers): uniform over task families, paprika (learning potential), webrl (failure replay), scaling-inter (growing step limit), dart (difficulty group sizes), envgen (weak families weighted up; TextHousehold climbs a ladder from an easy room to the default room, and on into houses of 1-4 rooms when hard)",
      "tasks drawn as before (no sampler)"
    )
  ),
  zeroAdvantageGroups: Flag.Literals("zero-advantage-groups", ["keep", "skip", "resample"] as const).pipe(
    withDefault("keep", "Text envs: groups whose returns are all equal (VSPO): keep them, skip them, or resample fresh tasks")
  ),
  epo: Flag.Boolean("epo").pipe(
    withDefault(false, "Text envs: EPO entropy smoothing (pull each step's entropy back into 0.8-1.2x its turn's historical average; optim Epo)")
  ),
  entropyBalancedClip: Flag.Boolean("entropy-balanced-clip").pipe(
    withDefault(false, "Text envs: AEPO entropy-balanced clipping (high-entropy steps keep a rescaled gradient where PPO's clip zeroes it)")
  ),
  annealLr: Flag.Boolean("anneal-lr").pipe(
    withDefault(false, "Text envs: anneal the learning rate linearly to 0 over --total-steps (CleanRL's anneal_lr)")
  ),
  learningRate: F.finite("learning-rate", { above: 0 }).pipe(
    optional("Text envs: Adam learning rate of the policy", "the env's measured setting (TextHousehold-v0: 5e-3, 1.5e-3 when --difficulty hard)")
  ),
  targetKl: F.finite("target-kl", { above: 0 }).pipe(
    optional("Text envs: stop an update's minibatch steps once one's approximate KL to the rollout policy exceeds 1.5x this (SB3's target_kl)", "every epoch runs")
  ),
  cluster: Flag.String("cluster").pipe(
    optional(
      "PostgreSQL URL of a rollout cluster (postgres://user@host:port/db): collect episodes on the runners registered there (start them with `autodidact runner`)",
      "local rollouts"
    )
  ),
  timeout: F.finite("timeout", { above: 0 }).pipe(
    optional("With --cluster: fail (exit 1) when no runner has sent an episode after this long", "wait for runners without limit", "seconds")
  ),
  json: jsonFlag
})

type Infer<F extends Command.Command.Config> = Command.Command.Config.Infer<F>

/** The parsed flags of every leaf command, by command path. */
export interface Configs {
  readonly "agent eval": Infer<typeof agentEvalFlags>
  readonly "agent train": Infer<typeof agentTrainFlags>
  readonly "bench envs": Infer<typeof benchEnvsFlags>
  readonly "bench kernels": Infer<typeof benchKernelsFlags>
  readonly "bench cli": Infer<typeof benchCliFlags>
  readonly "bench ppo": Infer<typeof benchPpoFlags>
  readonly "bench solvers": Infer<typeof benchSolversFlags>
  readonly "bench selfplay": Infer<typeof benchSelfplayFlags>
  readonly "bench replay": Infer<typeof benchReplayFlags>
  readonly "bench multiturn": Infer<typeof benchMultiturnFlags>
  readonly "bench search": Infer<typeof benchSearchFlags>
  readonly "bench deep-cfr": Infer<typeof benchDeepCfrFlags>
  readonly "bench archive": Infer<typeof benchArchiveFlags>
  readonly compare: Infer<ReturnType<typeof compareFlags>>
  readonly dashboard: Infer<typeof dashboardFlags>
  readonly eval: Infer<typeof evalFlags>
  readonly export: Infer<typeof exportFlags>
  readonly "games solve": Infer<typeof gamesSolveFlags>
  readonly "games psro": Infer<typeof gamesPsroFlags>
  readonly "games rank": Infer<typeof gamesRankFlags>
  readonly gateway: Infer<typeof gatewayFlags>
  readonly report: Infer<typeof reportFlags>
  readonly runner: Infer<typeof runnerFlags>
  readonly "serve-env": Infer<typeof serveEnvFlags>
  readonly "skills list": Infer<typeof skillsListFlags>
  readonly "skills show": Infer<typeof skillsShowFlags>
  readonly "skills admit": Infer<typeof skillsAdmitFlags>
  readonly "skills check": Infer<typeof skillsCheckFlags>
  readonly "skills retrieve": Infer<typeof skillsRetrieveFlags>
  readonly "skills call": Infer<typeof skillsCallFlags>
  readonly "skills rollback": Infer<typeof skillsRollbackFlags>
  readonly "skills remove": Infer<typeof skillsRemoveFlags>
  readonly "skills discover": Infer<typeof skillsDiscoverFlags>
  readonly "sokoban solve": Infer<typeof sokobanSolveFlags>
  readonly selfplay: Infer<typeof selfplayFlags>
  readonly start: Infer<typeof startFlags>
  readonly train: Infer<ReturnType<typeof trainFlags>>
}

/** A leaf command's path, e.g. `"games solve"`. */
export type CommandPath = keyof Configs

/** Runs the leaf command `command` with its parsed flags (supplied by the caller of {@link makeApp}). */
export type Run = <K extends CommandPath>(command: K, config: Configs[K]) => Effect.Effect<void, unknown>

/** What the command tree is built from beside the command handlers. */
export interface AppOptions {
  /**
   * The advantage estimators a text run can use, for `train --algo` and `compare --algos` (their choices, help and
   * parse-time check): the caller reads them from the registry of `@autodidact/optim` (`Estimators.textEstimators`).
   * Default: the built-ins, {@link textAlgos}.
   */
  readonly estimators?: ReadonlyArray<string> | undefined
}

/** The root command with every subcommand; `run` executes the leaves. */
export const makeApp = (run: Run, options: AppOptions = {}) => {
  const estimators = options.estimators ?? textAlgos
  const leaf = <K extends CommandPath, const F extends Command.Command.Config>(command: K, name: string, flags: F, description: string) =>
    Command.make(name, flags, (config) => run(command, config as unknown as Configs[K])).pipe(Command.withDescription(description))
  const group = <const S extends ReadonlyArray<Command.Command.SubcommandEntry>>(name: string, description: string, subcommands: S) =>
    Command.make(name).pipe(Command.withDescription(description), Command.withSubcommands(subcommands))
  return Command.make("autodidact").pipe(
    Command.withDescription("Autodidact: agents that learn from experience"),
    Command.withSubcommands([
      leaf("start", "start", startFlags, "The main job: PPO on CartPole-v1 until solved, evaluation, then 100 Sokoban levels solved"),
      leaf(
        "train",
        "train",
        trainFlags(estimators),
        `Train an agent and write a run directory: PPO on Box/Discrete envs (CartPole-v1, ...), or on the text envs (${textEnvIds.join(", ")}) a DRRN policy with a group advantage estimator: ${estimators.join(", ")}${options.estimators === undefined ? " or another registered one (train --help lists them)" : ""}`
      ),
      leaf("eval", "eval", evalFlags, "Evaluate a trained run's policy: mean/std return over N episodes, or a selfplay run against a fixed opponent (--against)"),
      leaf(
        "selfplay",
        "selfplay",
        selfplayFlags,
        "Self-play RL in games (SPIRAL/MARS/AT-GRPO/GRPO advantages, tabular policy), NashConv by exact best response every --eval-every updates"
      ),
      group("sokoban", "Sokoban tools: solve level files", [
        leaf("sokoban solve", "solve", sokobanSolveFlags, "Solve Boxoban-format Sokoban levels with the A* solver")
      ]),
      group("games", "Games and equilibrium solvers", [
        leaf(
          "games solve",
          "solve",
          gamesSolveFlags,
          "Solve a game with CFR, CFR+, LCFR, DCFR, PCFR+, PDCFR+, CFR-BR, MCCFR or Deep CFR (SD-CFR); prints NashConv per report and the game value"
        ),
        leaf(
          "games psro",
          "psro",
          gamesPsroFlags,
          "Run PSRO (or JPSRO on a matrix game) with a meta-solver; prints NashConv (or the (C)CE gap) per iteration"
        ),
        leaf(
          "games rank",
          "rank",
          gamesRankFlags,
          "Rank saved policies of a two-player game by α-Rank over their head-to-head payoffs (both seats)"
        )
      ]),
      group("bench", "Benchmarks", [
        leaf("bench envs", "envs", benchEnvsFlags, "Measure environment steps per second (raw, via make, vectorized x64, batched) against Gymnasium (Python transcription)"),
        leaf(
          "bench kernels",
          "kernels",
          benchKernelsFlags,
          "Time each numeric kernel on each engine against NumPy (ratio = ours / NumPy), marking the default engine"
        ),
        leaf(
          "bench cli",
          "cli",
          benchCliFlags,
          "Time the CLI's start-up (`--help`) and a Leduc CFR+ solve to NashConv 1e-3 against bare `node -e 0` (median of N runs)"
        ),
        leaf(
          "bench ppo",
          "ppo",
          benchPpoFlags,
          "Time PPO (CleanRL defaults) to solve CartPole-v1 per seed, beside the previous engine and CleanRL's recorded 76 s; network passes vs TensorFlow.js"
        ),
        leaf(
          "bench solvers",
          "solvers",
          benchSolversFlags,
          "Convergence table: NashConv after 10/100/1,000/10,000 iterations and solver seconds, for every tabular solver on Kuhn, Leduc, Liar's dice and 3-player Kuhn"
        ),
        leaf(
          "bench selfplay",
          "selfplay",
          benchSelfplayFlags,
          "Self-play acceptance figures: games/s, NashConv on Kuhn/Leduc per seed vs CFR+, tic-tac-toe vs minimax, estimator ablation"
        ),
        leaf(
          "bench replay",
          "replay",
          benchReplayFlags,
          "Time prioritized replay (sample, updatePriorities, tree descent, gather; 100k and 1M) against a NumPy sum tree in the same run"
        ),
        leaf(
          "bench multiturn",
          "multiturn",
          benchMultiturnFlags,
          "Time GiGPO training on TextHousehold-v0 (env steps/s, unseen success), optimized vs the unoptimized DRRN path, alternating in one run"
        ),
        leaf(
          "bench search",
          "search",
          benchSearchFlags,
          "MCTS nodes/s on TextHousehold-v0 and text Sokoban beside raw env steps/s, and snapshot/restore cost beside one env step"
        ),
        leaf(
          "bench archive",
          "archive",
          benchArchiveFlags,
          "Archive search over GiGPO training configurations on TextHousehold-v0: HGM vs DGM vs random vs the default at equal env-step budgets, scored on held-out unseen tasks"
        ),
        leaf(
          "bench deep-cfr",
          "deep-cfr",
          benchDeepCfrFlags,
          "SD-CFR (Deep CFR) on Leduc until the exact NashConv of its average policy reaches the target, beside tabular CFR+'s wall time to the same NashConv"
        )
      ]),
      leaf("compare", "compare", compareFlags(estimators), "Train a grid of text envs x algorithms x seeds, or (--runs) read existing runs, and write a Markdown table and SVG success curves"),
      leaf("dashboard", "dashboard", dashboardFlags, "Serve a local web dashboard over a runs directory (live updates)"),
      leaf("report", "report", reportFlags, "Write a self-contained HTML (or PNG) report of a runs directory"),
      leaf("runner", "runner", runnerFlags, "Start a rollout runner for `train --cluster` (distributed rollouts on PostgreSQL)"),
      leaf("gateway", "gateway", gatewayFlags, "Serve an OpenAI-compatible gateway that records every exchange as training data"),
      leaf("serve-env", "serve-env", serveEnvFlags, "Serve a text environment over HTTP with the AgentGym environment-server protocol"),
      leaf("export", "export", exportFlags, "Export recorded or environment trajectories for Python trainers (TRL/OpenAI chat JSONL, verl)"),
      group("agent", "LLM agents on text environments through an OpenAI-compatible endpoint", [
        leaf("agent eval", "eval", agentEvalFlags, "Evaluate an LLM agent (any OpenAI-compatible endpoint) on a text environment"),
        leaf(
          "agent train",
          "train",
          agentTrainFlags,
          "Improve an LLM agent without weight updates (Training-Free GRPO); writes a run directory with the experience library"
        )
      ]),
      group("skills", "Skill library: list, show, admit, check, retrieve, call, rollback, remove, discover", [
        leaf("skills list", "list", skillsListFlags, "List the skills of a library with their active version and usage statistics"),
        leaf("skills show", "show", skillsShowFlags, "Show a skill's metadata and source"),
        leaf("skills admit", "admit", skillsAdmitFlags, "Admit a skill (or a new version) after it compiles and passes its own tests in the sandbox"),
        leaf(
          "skills check",
          "check",
          skillsCheckFlags,
          "Re-run every skill's admission checks (compile and its own tests); fails if any skill no longer passes"
        ),
        leaf("skills retrieve", "retrieve", skillsRetrieveFlags, "Retrieve the skills whose descriptions are nearest to a query"),
        leaf("skills call", "call", skillsCallFlags, "Run a skill's active version in the sandbox with scripted host replies"),
        leaf("skills rollback", "rollback", skillsRollbackFlags, "Make an earlier (or later) admitted version of a skill the active one"),
        leaf("skills remove", "remove", skillsRemoveFlags, "Remove a skill and all its versions"),
        leaf(
          "skills discover",
          "discover",
          skillsDiscoverFlags,
          "Mine TextHousehold-v0 expert episodes for macro skills, verify them on held-out episodes, admit the ones that pass"
        )
      ])
    ])
  )
}
