/**
 * The in-browser PPO demo of `docs/browser/index.html`: starts the training worker (its bundle is inlined at build
 * time as `__WORKER_SOURCE__` and started from a Blob URL, so the page also works opened from `file://`), plots each
 * episode's return and a moving mean of 20 with uPlot, and shows the step count, losses and the result.
 *
 * Query parameters: `totalTimesteps` (default 200,000), `numEnvs` (4), `seed` (1), `target` (mean return to stop
 * at, 475), `autostart` (`1`: start without a click). State for tests and the console: `window.demo`.
 * @since 0.0.0
 */
import uPlot from "uplot"
import type { TrainMessage, TrainRequest } from "./protocol.js"

declare const __WORKER_SOURCE__: string

/** What the page exposes as `window.demo`. */
export interface DemoState {
  readonly steps: Array<number>
  readonly returns: Array<number>
  readonly means: Array<number>
  updates: number
  status: "idle" | "training" | "done" | "error"
  last: TrainMessage | undefined
  chart: uPlot | undefined
}

const params = new URLSearchParams(location.search)
const num = (name: string, fallback: number): number => {
  const v = Number(params.get(name))
  return params.has(name) && Number.isFinite(v) && v > 0 ? v : fallback
}
const request: TrainRequest = {
  totalTimesteps: num("totalTimesteps", 200_000),
  numEnvs: num("numEnvs", 4),
  seed: num("seed", 1),
  targetReturn: num("target", 475)
}

const state: DemoState = { steps: [], returns: [], means: [], updates: 0, status: "idle", last: undefined, chart: undefined }
;(window as unknown as { demo: DemoState }).demo = state

const $ = (id: string): HTMLElement => document.getElementById(id)!

const makeChart = (): uPlot => {
  const el = $("chart")
  return new uPlot(
    {
      width: Math.max(320, el.clientWidth),
      height: 360,
      scales: { x: { time: false } },
      axes: [{ label: "environment steps" }, { label: "episode return" }],
      series: [
        { label: "step" },
        { label: "episode return", stroke: "rgba(70, 110, 200, 0.45)", width: 1, points: { show: false } },
        { label: "mean of 20", stroke: "#c0392b", width: 2, points: { show: false } }
      ]
    },
    [[], [], []],
    el
  )
}

const onMessage = (m: TrainMessage): void => {
  state.last = m
  if (m.kind === "update") {
    state.updates++
    for (const [step, ret] of m.episodes) {
      state.steps.push(step)
      state.returns.push(ret)
      const window = state.returns.slice(-20)
      state.means.push(window.reduce((a, b) => a + b, 0) / window.length)
    }
    state.chart?.setData([state.steps, state.returns, state.means])
    $("status").textContent =
      `training: ${m.globalStep.toLocaleString()} steps, ${state.returns.length} episodes, ` +
      `mean of last 20 = ${(state.means.at(-1) ?? 0).toFixed(1)}, ${m.wallSeconds.toFixed(1)} s ` +
      `(policy loss ${m.policyLoss.toFixed(4)}, value loss ${m.valueLoss.toFixed(2)})`
  } else if (m.kind === "done") {
    state.status = "done"
    $("status").textContent =
      `${m.stopReason === "solved" ? "solved" : "stopped (" + m.stopReason + ")"} at ${m.globalStep.toLocaleString()} steps ` +
      `in ${m.wallSeconds.toFixed(1)} s; mean return of the last 100 episodes ${m.meanRecentReturn.toFixed(1)}`
    ;($("start") as HTMLButtonElement).disabled = false
  } else {
    state.status = "error"
    $("status").textContent = `error: ${m.message}`
    ;($("start") as HTMLButtonElement).disabled = false
  }
}

let worker: Worker | undefined

const start = (): void => {
  worker?.terminate()
  state.steps.length = 0
  state.returns.length = 0
  state.means.length = 0
  state.updates = 0
  state.status = "training"
  state.chart ??= makeChart()
  state.chart.setData([[], [], []])
  ;($("start") as HTMLButtonElement).disabled = true
  $("status").textContent = `training PPO on CartPole-v1 (${request.numEnvs} envs, up to ${request.totalTimesteps.toLocaleString()} steps)...`
  worker = new Worker(URL.createObjectURL(new Blob([__WORKER_SOURCE__], { type: "text/javascript" })))
  worker.onmessage = (e: MessageEvent<TrainMessage>) => onMessage(e.data)
  worker.onerror = (e) => onMessage({ kind: "error", message: e.message })
  worker.postMessage(request)
}

$("start").addEventListener("click", start)
$("settings").textContent = `seed ${request.seed}, ${request.numEnvs} envs, budget ${request.totalTimesteps.toLocaleString()} steps, stop at mean return ${request.targetReturn}`
if (params.get("autostart") === "1") start()
