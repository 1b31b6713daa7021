/**
 * Streaming metrics of a task stream, as Evo-Memory evaluates self-evolving agents (Wei et al., "Evo-Memory:
 * Benchmarking LLM Agent Test-time Learning with Self-Evolving Memory", arXiv:2511.20857): every task is scored when
 * it comes, before the agent learns from it, and the scores are summarized over the stream.
 *
 * Each outcome is the task's success in [0, 1] (here: the share of the task's rollout group that succeeded).
 * - `streamSuccess`: the mean outcome of every task so far (success over the stream).
 * - `unseenSuccess`: the mean outcome of the first encounters of unseen tasks (novelty other than `seen`).
 * - `forwardTransfer`: the mean of `outcome − baseline` over those first encounters that carry a baseline (the success
 *   of an agent that learnt nothing on the same task, e.g. the random policy): GEM's forward transfer
 *   (Lopez-Paz & Ranzato, "Gradient Episodic Memory for Continual Learning", NeurIPS 2017, arXiv:1706.08840, §4:
 *   `R_{i−1,i} − b̄_i`), with the task's own baseline for `b̄_i`.
 * - `forgetting`: over re-visits of a task, the mean of `max(0, best earlier outcome on that task − outcome now)`:
 *   Chaudhry et al.'s forgetting measure ("Riemannian Walk for Incremental Learning", ECCV 2018, arXiv:1801.10112)
 *   taken per re-visited task; 0 when nothing got worse.
 * Each is `undefined` until it has an outcome to average (never NaN).
 * @since 0.0.0
 */
import { InvalidOptionError } from "@autodidact/core"
import type { StreamTask } from "./Stream.js"

/** One scored task of the stream. */
export interface Outcome {
  /** Equal keys are the same task (re-visits). */
  readonly key: string
  /** `seen` or what is new (`unseen-layout`, `unseen-family`). */
  readonly novelty: string
  /** Success in [0, 1]. */
  readonly success: number
  /** The no-learning baseline's success on the same task, in [0, 1], when measured. */
  readonly baseline?: number | undefined
}

/** The metrics after some outcomes. */
export interface Snapshot {
  readonly tasks: number
  readonly streamSuccess: number | undefined
  readonly seenSuccess: number | undefined
  readonly unseenSuccess: number | undefined
  readonly forwardTransfer: number | undefined
  readonly forgetting: number | undefined
  readonly revisits: number
  readonly unseenTasks: number
}

/** Running sums of the stream metrics; `add` each outcome in stream order. */
export class StreamMetrics {
  private tasks = 0
  private sum = 0
  private seen = 0
  private seenSum = 0
  private unseen = 0
  private unseenSum = 0
  private transfer = 0
  private transferSum = 0
  private revisits = 0
  private forgetSum = 0
  private readonly best = new Map<string, number>()

  /**
   * Score one task. A key met before is a re-visit (it counts toward `forgetting`, not toward the seen or unseen
   * means). Throws InvalidOptionError for a success or baseline outside [0, 1] (or not finite).
   */
  add(o: Outcome): Snapshot {
    const check = (name: string, v: number) => {
      if (!(Number.isFinite(v) && v >= 0 && v <= 1)) throw new InvalidOptionError({ option: name, value: v, reason: `must be in [0, 1] (task ${o.key})` })
    }
    check("success", o.success)
    if (o.baseline !== undefined) check("baseline", o.baseline)
    this.tasks++
    this.sum += o.success
    const before = this.best.get(o.key)
    if (before !== undefined) {
      this.revisits++
      this.forgetSum += Math.max(0, before - o.success)
      this.best.set(o.key, Math.max(before, o.success))
    } else {
      this.best.set(o.key, o.success)
      if (o.novelty === "seen") {
        this.seen++
        this.seenSum += o.success
      } else {
        this.unseen++
        this.unseenSum += o.success
        if (o.baseline !== undefined) {
          this.transfer++
          this.transferSum += o.success - o.baseline
        }
      }
    }
    return this.snapshot()
  }

  /** The metrics so far. */
  snapshot(): Snapshot {
    const mean = (s: number, n: number) => (n === 0 ? undefined : s / n)
    return {
      tasks: this.tasks,
      streamSuccess: mean(this.sum, this.tasks),
      seenSuccess: mean(this.seenSum, this.seen),
      unseenSuccess: mean(this.unseenSum, this.unseen),
      forwardTransfer: mean(this.transferSum, this.transfer),
      forgetting: mean(this.forgetSum, this.revisits),
      revisits: this.revisits,
      unseenTasks: this.unseen
    }
  }
}

/** The defined numbers of a snapshot (for a metrics row: no undefined, no NaN). */
export const definedNumbers = (s: Snapshot): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const [k, v] of Object.entries(s)) if (typeof v === "number" && Number.isFinite(v)) out[k] = v
  return out
}

/** A stream's figures as a run's summary reports them: a {@link Snapshot}'s, with `null` for undefined (JSON). */
export interface SummaryFigures {
  readonly streamTasks: number
  readonly streamSuccess: number | null
  readonly seenSuccess: number | null
  readonly unseenSuccess: number | null
  readonly forwardTransfer: number | null
  readonly forgetting: number | null
  readonly revisits: number
}

/** The {@link SummaryFigures} of `s` after `streamTasks` stream tasks. */
export const summaryFigures = (s: Snapshot, streamTasks: number): SummaryFigures => ({
  streamTasks,
  streamSuccess: s.streamSuccess ?? null,
  seenSuccess: s.seenSuccess ?? null,
  unseenSuccess: s.unseenSuccess ?? null,
  forwardTransfer: s.forwardTransfer ?? null,
  forgetting: s.forgetting ?? null,
  revisits: s.revisits
})

/**
 * The `stream` row of `metrics.jsonl` for task `st`: its success (`taskSuccess`, in [0, 1]), the agent's `extra`
 * figures, its random baseline when there is one, and the stream's figures after it (`snap`, finite ones only).
 */
export const streamRow = (
  st: StreamTask,
  taskSuccess: number,
  baseline: number | undefined,
  snap: Snapshot,
  at: { readonly globalStep: number; readonly wallSeconds: number },
  extra: Record<string, number> = {}
): Record<string, unknown> => ({
  kind: "stream",
  globalStep: at.globalStep,
  wallSeconds: at.wallSeconds,
  streamIndex: st.index,
  family: st.family,
  novelty: st.novelty,
  revisit: st.revisit,
  taskSuccess,
  ...extra,
  ...(baseline === undefined ? {} : { baselineSuccess: baseline }),
  ...definedNumbers(snap)
})
