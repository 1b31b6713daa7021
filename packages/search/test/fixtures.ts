/**
 * Test doubles: a deterministic text env over a hand-written graph (states, actions, rewards), with snapshot/restore,
 * and a Sokoban value heuristic read from the text observation.
 */
import { ResetNeededError, Space } from "@autodidact/core"
import type { Env, Snapshot, TextEnv } from "@autodidact/envs"
import { SnapshotMismatchError } from "@autodidact/envs"

/** One transition: next state (or a terminal outcome) and reward. */
export interface Arc {
  readonly to: string
  readonly reward: number
  /** Ends the episode (terminated). */
  readonly end?: boolean
}

/** A graph: state -> action -> arc. */
export type Graph = Readonly<Record<string, Readonly<Record<string, Arc>>>>

interface GraphSnap extends Snapshot.EnvSnapshot {
  readonly owner: GraphEnv
  readonly state: string
  readonly running: boolean
}

/** A deterministic text env on a graph; the observation is the state name, `stateKey()` too. */
export class GraphEnv implements TextEnv.RestorableTextEnv {
  readonly observationSpace = Space.text(64)
  readonly actionSpace = Space.text(64)
  readonly metadata: Env.Metadata = { renderModes: [] }
  spec: Env.EnvSpec | undefined = undefined
  readonly task = "collect reward"
  state = ""
  running = false
  steps = 0

  constructor(readonly graph: Graph, readonly start: string) {}

  get unwrapped(): this {
    return this
  }

  get npRandom(): never {
    throw new Error("unused")
  }

  reset(): Env.ResetResult<string> {
    this.state = this.start
    this.running = true
    return { observation: this.state, info: {} }
  }

  admissibleActions(): ReadonlyArray<string> {
    return Object.keys(this.graph[this.state] ?? {})
  }

  stateKey(): string {
    return this.state
  }

  step(action: string): Env.StepResult<string> {
    if (!this.running) throw new ResetNeededError({ envId: "Graph", reason: "ended" })
    this.steps++
    const arc = this.graph[this.state]![action]!
    this.state = arc.to
    const end = arc.end === true || this.admissibleActions().length === 0
    if (end) this.running = false
    return { observation: this.state, reward: arc.reward, terminated: end, truncated: false, info: {} }
  }

  snapshot(): Snapshot.EnvSnapshot {
    const s: GraphSnap = { envId: "Graph", owner: this, state: this.state, running: this.running }
    return Object.freeze(s)
  }

  restore(snapshot: Snapshot.EnvSnapshot): void {
    const s = snapshot as GraphSnap
    if (s.owner !== this) throw new SnapshotMismatchError({ envId: "Graph", snapshotEnvId: snapshot.envId, reason: "other instance" })
    this.state = s.state
    this.running = s.running
  }

  render(): string {
    return this.state
  }

  toMessages(): Array<TextEnv.ChatMessage> {
    return []
  }

  close(): void {}
}

/**
 * A Sokoban heuristic from the text grid (RAGEN symbols): minus the Manhattan distance from each box off target to
 * the nearest target, times 10, minus the player's distance to the nearest such box. 0 when solved.
 */
export const sokobanValue = (observation: string): number => {
  const rows = observation.split("\n").filter((r) => /^[#_OX√PS]+$/.test(r))
  const boxes: Array<[number, number]> = []
  const targets: Array<[number, number]> = []
  let player: [number, number] = [0, 0]
  rows.forEach((row, r) => [...row].forEach((ch, c) => {
    if (ch === "X") boxes.push([r, c])
    if (ch === "O" || ch === "S") targets.push([r, c])
    if (ch === "P" || ch === "S") player = [r, c]
  }))
  if (boxes.length === 0) return 0
  const d = (a: [number, number], b: [number, number]) => Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1])
  let v = 0
  for (const b of boxes) v -= 10 * Math.min(...targets.map((t) => d(b, t)))
  v -= Math.min(...boxes.map((b) => d(b, player)))
  return v
}
