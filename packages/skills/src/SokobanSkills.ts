/**
 * Sokoban skills: `push-box-along-path` (walk behind a box, push it one step, repeat along a path of directions or
 * to a target cell) and `walk-to` (the player to a cell), written as sandboxed JavaScript skills for the
 * text Sokoban environment (`TextSokoban`, `Sokoban-6x6-1box-v0`, or any size it is built with), and the options
 * that offer them as macro-actions through {@link SkillOptions.SkillOptionsEnv} / `SyncSkillOptionsEnv`.
 *
 * **When to use**
 * - As example skills of the library (Voyager-style: JSON-Schema parameters, JavaScript source, own tests with
 *   scripted host responses), or as macro-actions that let an agent plan in box pushes instead of player steps.
 *
 * **Details**
 * - Guest API: the skills read the grid from `observe().observation` (the text grid of `TextSokoban`, RAGEN's
 *   symbols `#` wall, `_` floor, `O` target, `X` box, `√` box on target, `P` player, `S` player on target; the
 *   legend line of the reset observation is skipped: the grid is the first block of lines made only of these
 *   symbols) and step with `act("Up" | "Down" | "Left" | "Right")`. After every step the skill re-reads the grid
 *   from the step's observation and checks that the player (and the box) moved where the rules say; a mismatch ends
 *   the call with `reason: "unexpected-state"`. No other host access.
 * - Walks are shortest paths by breadth-first search over 4-neighbours, treating walls and every box as blocked, so
 *   a walk never pushes a box (neighbour order Up, Down, Left, Right breaks ties).
 * - `push-box-along-path { row, col, path }`: `row`, `col` (0-based, row 0 is the top line of the grid; integers or
 *   decimal strings, since skill commands pass strings) name the box; `path` is either a sequence of directions —
 *   letters `U D L R` and/or words `up down left right`, case-insensitive, optionally separated by spaces or commas
 *   (`"RRDD"`, `"right, right, down"`) — or a target cell `"R,C"` (or `"R C"`), for which the skill plans a
 *   push-optimal route for this one box by breadth-first search over (box cell, side of the player) states, other
 *   boxes fixed. For each push it walks the player to the cell behind the box and pushes once (Sokoban rules: a box
 *   moves only when pushed into a free floor or target cell; it is never pulled).
 *   Returns `{ ok: true, pushes, moves, box: [row, col], path, won, steps }` (`moves` walking steps, `pushes`
 *   pushes: the call took `moves + pushes` primitive steps; `box` the box's final cell; `path` the letters pushed;
 *   `won` whether the last step ended the episode with every box on a target; `steps` the commands sent, in LURD
 *   notation — `u d l r` walks, `U D L R` pushes — as `SokobanSolver` writes plans).
 * - Failures are results, never exceptions: `{ ok: false, reason, pushes, moves, ... }` with `reason`
 *   - `"bad-argument"` (with `detail`): `row`/`col` not a non-negative integer, `path` neither directions nor a cell,
 *     or longer than 10,000 steps; no primitive step is taken;
 *   - `"no-grid"`: the observation holds no grid (e.g. the wrapped env was reset directly, not through the wrapper);
 *   - `"no-box"`: no box at `(row, col)` (or outside the grid);
 *   - `"blocked"` (with `step`, `at: "front" | "behind"`, `box`, `steps`): push `step` (0-based) is impossible — the cell the
 *     box would move into, or the cell the player must stand on, is a wall, a box or outside the grid;
 *   - `"unreachable"` (with `step`, `box`, `steps`): the player cannot walk to the cell behind the box;
 *   - `"no-route"`: for a target cell, no sequence of pushes of this box alone reaches it;
 *   - `"episode-ended"` (with `step`, `won`): the episode ended before the path was done (time limit, or a win on
 *     the way); `"unexpected-state"`: see above.
 *   Steps taken before a failure stand (`pushes` and `moves` count them). The options wrapper may still end a call
 *   with a typed sandbox error (`HostCallError` when it refuses a step, e.g. above `maxPrimitiveSteps`;
 *   `SkillTimeoutError` on the sandbox's time limit): the wrapper reports it in `info.skillError`.
 * - `walk-to { row, col }`: the player to that cell; `{ ok: true, moves, steps }` or `{ ok: false, reason, moves }` with
 *   `"bad-argument"`, `"no-grid"`, `"blocked"` (the cell is a wall or a box, or outside the grid), `"unreachable"`,
 *   `"episode-ended"`, `"unexpected-state"`.
 * - Options ({@link sokobanOptions}): `push-box-along-path` grounded two ways — each box off target to each free
 *   target that the one-box planner reaches (`skill push-box-along-path R C TR,TC`), and each legal one-step push
 *   (the player can walk behind the box and the cell in front is free: `skill push-box-along-path R C U`) — and,
 *   optionally, `walk-to` grounded to the cells behind boxes from which a push is legal. The groundings read the
 *   env's `render()` text (the same grid), so they work for any text env that renders RAGEN's symbols.
 *
 * **Gotchas**
 * - The skills are self-contained (they share one JavaScript prelude but do not `callSkill` each other), so either
 *   can be admitted alone.
 * - The target form plans for one box with the others fixed: it finds no route when another box must move first.
 * - A push-box call can exceed the wrapper's `maxPrimitiveSteps` (default 100) on large levels: raise it.
 *
 * @example
 * ```ts
 * import { SokobanLevel, TextSokoban } from "@autodidact/envs"
 * import { Embedder } from "@autodidact/memory"
 * import { Sandbox, SkillLibrary, SkillOptions, SokobanSkills, SyncSandbox } from "@autodidact/skills"
 * import { Effect, Layer } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const library = yield* SkillLibrary.SkillLibrary.make()
 *   for (const s of SokobanSkills.sokobanSkills) yield* library.admit(s)
 *   const runner = yield* SyncSandbox.make({ timeoutMs: 2000 })
 *   const env = new SkillOptions.SyncSkillOptionsEnv(new TextSokoban.TextSokoban({ size: 6 }), library, SokobanSkills.sokobanOptions(), runner)
 *   env.reset({ options: { level: SokobanLevel.fromRows(["######", "#@   #", "# $  #", "#    #", "#   .#", "######"]) } })
 *   return env.step("skill push-box-along-path 2 2 DDRR").info // skillResult: { ok: true, pushes: 4, moves: 3, ... }
 * }).pipe(Effect.provide(Layer.mergeAll(Sandbox.layer(), Embedder.layerHashed())))
 * ```
 * @see Wang et al., "Voyager: An Open-Ended Embodied Agent with Large Language Models", arXiv:2305.16291 (skill format)
 * @see Guez et al. 2018, "An investigation of model-free planning", arXiv:1901.03559 (Boxoban levels)
 * @see http://sokobano.de/wiki/index.php?title=Rules (Sokoban rules)
 * @see Wang et al., "RAGEN", arXiv:2504.20073 (the text grid symbols)
 * @category skills
 * @since 0.1.0
 */
import type { TextEnv as TextEnvModule } from "@autodidact/envs"
import type * as Skill from "./Skill.js"
import type { SkillOption } from "./Skill.js"

type TextEnv = TextEnvModule.TextEnv

// ---------------------------------------------------------------------------------------------------------------------
// Guest JavaScript (QuickJS, ES5-ish)

/** The shared prelude of both skills: grid parsing, breadth-first walks, the one-box push planner, argument parsing. */
const prelude = String.raw`
var DIRS = ["Up", "Down", "Left", "Right"], LETTERS = "UDLR", DR = [-1, 1, 0, 0], DC = [0, 0, -1, 1];
var CODES = { "#": 0, "_": 1, "O": 2, "\u221A": 3, "X": 4, "P": 5, "S": 6 };
function parseGrid(text) {
  if (typeof text !== "string") return null;
  var lines = text.split("\n"), rows = [];
  for (var i = 0; i < lines.length; i++) {
    var l = lines[i].replace(/\s+$/, "");
    if (/^[#_OX\u221APS]+$/.test(l)) rows.push(l);
    else if (rows.length > 0) break;
  }
  if (rows.length === 0) return null;
  var w = rows[0].length, cells = [], player = -1;
  for (var r = 0; r < rows.length; r++) {
    if (rows[r].length !== w) return null;
    for (var c = 0; c < w; c++) {
      var k = CODES[rows[r].charAt(c)];
      if (k === 5 || k === 6) { if (player >= 0) return null; player = r * w + c; }
      cells.push(k);
    }
  }
  if (player < 0) return null;
  return { h: rows.length, w: w, cells: cells, player: player };
}
function isBox(g, i) { return g.cells[i] === 3 || g.cells[i] === 4; }
function isFree(g, i) { var k = g.cells[i]; return k === 1 || k === 2 || k === 5 || k === 6; }
function nb(g, i, d) {
  var r = Math.floor(i / g.w) + DR[d], c = (i % g.w) + DC[d];
  return r < 0 || r >= g.h || c < 0 || c >= g.w ? -1 : r * g.w + c;
}
function cellOf(g, i) { return [Math.floor(i / g.w), i % g.w]; }
// blocked cells: walls and every box except 'except' (-1: all boxes)
function blockedCells(g, except) {
  var b = [];
  for (var i = 0; i < g.cells.length; i++) b.push(g.cells[i] === 0 || (isBox(g, i) && i !== except));
  return b;
}
// breadth-first search from 'from' avoiding 'blocked' and the cell 'extra': via[i] = direction entering i, 4 at the
// start, -1 when unreachable
function reach(g, from, blocked, extra) {
  var via = [];
  for (var i = 0; i < g.cells.length; i++) via.push(-1);
  via[from] = 4;
  var q = [from];
  for (var h = 0; h < q.length; h++) {
    for (var d = 0; d < 4; d++) {
      var y = nb(g, q[h], d);
      if (y < 0 || via[y] !== -1 || blocked[y] || y === extra) continue;
      via[y] = d;
      q.push(y);
    }
  }
  return via;
}
// the shortest walk (direction indices) of the player to 'goal' with walls and boxes blocked, or null
function walkPath(g, goal) {
  var via = reach(g, g.player, blockedCells(g, -1), -1);
  if (via[goal] === -1) return null;
  var out = [];
  for (var c = goal; via[c] !== 4; c = nb(g, c, via[c] ^ 1)) out.unshift(via[c]);
  return out;
}
// push-optimal directions that bring the box at 'box' to 'target' (other boxes fixed), or null
function planBox(g, box, target) {
  if (box === target) return [];
  var blocked = blockedCells(g, box);
  if (blocked[target]) return null;
  var prev = {}, q = [];
  function expand(b, p, parent) {
    var via = reach(g, p, blocked, b);
    for (var d = 0; d < 4; d++) {
      var front = nb(g, b, d), behind = nb(g, b, d ^ 1);
      if (front < 0 || behind < 0 || blocked[front] || via[behind] === -1) continue;
      var s = front * 4 + d;
      if (prev[s] !== undefined) continue;
      prev[s] = parent;
      if (front === target) return s;
      q.push(s);
    }
    return -1;
  }
  var found = expand(box, g.player, -1);
  for (var h = 0; found < 0 && h < q.length; h++) {
    var b = Math.floor(q[h] / 4);
    found = expand(b, nb(g, b, (q[h] % 4) ^ 1), q[h]);
  }
  if (found < 0) return null;
  var out = [];
  for (var s = found; s !== -1; s = prev[s]) out.unshift(s % 4);
  return out;
}
function cellArg(v) {
  if (typeof v === "number" && v % 1 === 0 && v >= 0 && v < 10000) return v;
  if (typeof v === "string" && /^\s*\d{1,4}\s*$/.test(v)) return parseInt(v, 10);
  return -1;
}
// directions ({ dirs }) or a target cell ({ to: [row, col] }), or null
function parsePath(p) {
  if (typeof p !== "string") return null;
  var t = /^\s*(\d{1,4})\s*[,\s]\s*(\d{1,4})\s*$/.exec(p);
  if (t) return { to: [parseInt(t[1], 10), parseInt(t[2], 10)] };
  var s = p.replace(/^[\s,]+|[\s,]+$/g, "").toLowerCase();
  if (s === "") return null;
  var tokens = s.split(/[\s,]+/), dirs = [], words = ["up", "down", "left", "right"];
  for (var i = 0; i < tokens.length; i++) {
    var w = words.indexOf(tokens[i]);
    if (w >= 0) { dirs.push(w); continue; }
    if (!/^[udlr]+$/.test(tokens[i])) return null;
    for (var j = 0; j < tokens[i].length; j++) dirs.push("udlr".indexOf(tokens[i].charAt(j)));
  }
  return dirs.length > 10000 ? null : { dirs: dirs };
}
function lettersOf(dirs) { var s = ""; for (var i = 0; i < dirs.length; i++) s += LETTERS.charAt(dirs[i]); return s; }
`

const walkToSource = prelude + String.raw`
function main(a) {
  var row = cellArg(a && a.row), col = cellArg(a && a.col);
  if (row < 0 || col < 0) return { ok: false, reason: "bad-argument", moves: 0, detail: "row and col must be non-negative integers" };
  var o = observe();
  if (o.done) return { ok: false, reason: "episode-ended", moves: 0 };
  var g = parseGrid(o.observation);
  if (!g) return { ok: false, reason: "no-grid", moves: 0 };
  if (row >= g.h || col >= g.w) return { ok: false, reason: "blocked", moves: 0 };
  var goal = row * g.w + col;
  if (!isFree(g, goal)) return { ok: false, reason: "blocked", moves: 0 };
  var walk = walkPath(g, goal);
  if (walk === null) return { ok: false, reason: "unreachable", moves: 0 };
  var steps = "";
  for (var k = 0; k < walk.length; k++) {
    var expect = nb(g, g.player, walk[k]);
    var r = act(DIRS[walk[k]]);
    steps += DIRS[walk[k]].charAt(0).toLowerCase();
    var g2 = parseGrid(r.observation);
    if (!g2 || g2.player !== expect) return { ok: false, reason: "unexpected-state", moves: k + 1 };
    g = g2;
    if (r.done && k < walk.length - 1) return { ok: false, reason: "episode-ended", moves: k + 1 };
  }
  return { ok: true, moves: walk.length, steps: steps };
}`

const pushSource = prelude + String.raw`
function main(a) {
  var row = cellArg(a && a.row), col = cellArg(a && a.col), plan = parsePath(a && a.path);
  function bad(detail) { return { ok: false, reason: "bad-argument", pushes: 0, moves: 0, detail: detail }; }
  if (row < 0 || col < 0) return bad("row and col must be non-negative integers");
  if (plan === null) return bad("path must be directions (U D L R / up down left right) or a target cell R,C");
  var o = observe();
  if (o.done) return { ok: false, reason: "episode-ended", pushes: 0, moves: 0, won: false };
  var g = parseGrid(o.observation);
  if (!g) return { ok: false, reason: "no-grid", pushes: 0, moves: 0 };
  if (row >= g.h || col >= g.w || !isBox(g, row * g.w + col)) return { ok: false, reason: "no-box", pushes: 0, moves: 0 };
  var box = row * g.w + col, dirs = plan.dirs;
  if (plan.to) {
    var tr = plan.to[0], tc = plan.to[1];
    dirs = tr < g.h && tc < g.w ? planBox(g, box, tr * g.w + tc) : null;
    if (dirs === null) return { ok: false, reason: "no-route", pushes: 0, moves: 0, box: [row, col] };
  }
  var moves = 0, pushes = 0, won = false, steps = "";
  function fail(reason, step, more) {
    var out = { ok: false, reason: reason, step: step, pushes: pushes, moves: moves, box: cellOf(g, box), steps: steps };
    for (var key in more) out[key] = more[key];
    return out;
  }
  for (var s = 0; s < dirs.length; s++) {
    var d = dirs[s], front = nb(g, box, d), behind = nb(g, box, d ^ 1);
    if (front < 0 || !isFree(g, front)) return fail("blocked", s, { at: "front" });
    if (behind < 0 || !isFree(g, behind)) return fail("blocked", s, { at: "behind" });
    var walk = walkPath(g, behind);
    if (walk === null) return fail("unreachable", s);
    for (var k = 0; k < walk.length; k++) {
      var expect = nb(g, g.player, walk[k]);
      var r = act(DIRS[walk[k]]);
      moves++;
      steps += DIRS[walk[k]].charAt(0).toLowerCase();
      var g2 = parseGrid(r.observation);
      if (!g2 || g2.player !== expect) return fail("unexpected-state", s);
      g = g2;
      if (r.done) return fail("episode-ended", s, { won: r.won === true });
    }
    var rp = act(DIRS[d]);
    pushes++;
    steps += DIRS[d].charAt(0);
    var g3 = parseGrid(rp.observation);
    if (!g3 || g3.player !== box || !isBox(g3, front)) return fail("unexpected-state", s);
    g = g3;
    box = front;
    won = rp.won === true;
    if (rp.done && s < dirs.length - 1) return fail("episode-ended", s + 1, { won: won });
  }
  return { ok: true, pushes: pushes, moves: moves, box: cellOf(g, box), path: lettersOf(dirs), won: won, steps: steps };
}`

// ---------------------------------------------------------------------------------------------------------------------
// Specs

const cellParam = (what: string) => ({
  description: `${what} (0-based; row 0 is the grid's top line): an integer, or a decimal string as skill commands pass`,
  anyOf: [{ type: "integer", minimum: 0 }, { type: "string", pattern: "^[0-9]{1,4}$" }]
})

const failure = {
  type: "object",
  properties: {
    ok: { const: false },
    reason: {
      enum: ["bad-argument", "no-grid", "no-box", "blocked", "unreachable", "no-route", "episode-ended", "unexpected-state"]
    },
    pushes: { type: "integer" },
    moves: { type: "integer" },
    step: { type: "integer" },
    at: { enum: ["front", "behind"] },
    box: { type: "array", items: { type: "integer" } },
    won: { type: "boolean" },
    detail: { type: "string" },
    steps: { type: "string" }
  },
  required: ["ok", "reason", "moves"]
}

/**
 * A skill's result schema: `{ ok: true, ...fields }` with every field required, or the shared {@link failure} shape.
 */
const okOrFailure = (fields: Record<string, unknown>) => ({
  anyOf: [
    { type: "object", properties: { ok: { const: true }, ...fields }, required: ["ok", ...Object.keys(fields)] },
    failure
  ]
})

/** Tags and provenance of the hand-written Sokoban skills. */
const handWritten = {
  tags: ["Sokoban", "Sokoban-6x6-1box-v0"],
  provenance: { author: "autodidact", note: "hand-written example skill" }
}

/** One grid per line-array, joined as `TextSokoban` prints it (for the scripted tests). */
const grid = (...rows: ReadonlyArray<string>) => rows.join("\n")

// the 5 × 5 room of the scripted tests: box (2,2), target (3,3), player (1,1)
const room0 = grid("#####", "#P__#", "#_X_#", "#__O#", "#####")
// "DR": walk Right, push Down, walk Left + Down, push Right (box onto the target: the episode is won)
const roomDR = [
  { observation: grid("#####", "#_P_#", "#_X_#", "#__O#", "#####"), done: false, won: false },
  { observation: grid("#####", "#___#", "#_P_#", "#_XO#", "#####"), done: false, won: false },
  { observation: grid("#####", "#___#", "#P__#", "#_XO#", "#####"), done: false, won: false },
  { observation: grid("#####", "#___#", "#___#", "#PXO#", "#####"), done: false, won: false },
  { observation: grid("#####", "#___#", "#___#", "#_P\u221A#", "#####"), done: true, won: true }
]
const observed = (observation: string) => ({ observation, admissible: ["Up", "Down", "Left", "Right"], task: "", done: false })

/**
 * `walk-to`: the player to a cell by a shortest walk (breadth-first search, walls and boxes blocked; never pushes).
 * Arguments `{ row, col }`; result `{ ok: true, moves, steps }` or `{ ok: false, reason, moves }` (see the module docs).
 */
export const walkTo: Skill.SkillSpec = {
  name: "walk-to",
  description: "sokoban: walk the player to a grid cell by a shortest path around walls and boxes, without pushing",
  parameters: {
    type: "object",
    properties: { row: cellParam("the cell's row"), col: cellParam("the cell's column") },
    required: ["row", "col"]
  },
  result: okOrFailure({ moves: { type: "integer" }, steps: { type: "string" } }),
  ...handWritten,
  source: walkToSource,
  tests: [
    {
      name: "walks around the box",
      input: { row: 3, col: 2 },
      expected: { ok: true, moves: 3, steps: "ddr" },
      host: {
        observe: [observed(`Symbols: legend line.\n${room0}`)],
        // (1,1) → (2,1) → (3,1) → (3,2): Down, Down, Right
        act: [
          { observation: grid("#####", "#___#", "#PX_#", "#__O#", "#####"), done: false },
          { observation: grid("#####", "#___#", "#_X_#", "#P_O#", "#####"), done: false },
          { observation: grid("#####", "#___#", "#_X_#", "#_PO#", "#####"), done: false }
        ]
      }
    },
    {
      name: "a walled-off cell is unreachable",
      input: { row: "1", col: "3" },
      expected: { ok: false, reason: "unreachable", moves: 0 },
      host: { observe: [observed(grid("#####", "#PX_#", "###_#", "#__O#", "#####"))] }
    },
    {
      name: "a box cell is blocked",
      input: { row: 2, col: 2 },
      expected: { ok: false, reason: "blocked", moves: 0 },
      host: { observe: [observed(room0)] }
    },
    {
      name: "bad argument",
      input: { row: -1, col: "x" },
      expected: { ok: false, reason: "bad-argument", moves: 0, detail: "row and col must be non-negative integers" }
    }
  ]
}

/**
 * `push-box-along-path`: push the box at `(row, col)` along `path` (directions, or a target cell `"R,C"` planned
 * push-optimally for this box), walking behind it before each push. See the module docs for arguments and results.
 */
export const pushBoxAlongPath: Skill.SkillSpec = {
  name: "push-box-along-path",
  description:
    "sokoban: push the box at a cell along a path of directions (U D L R) or to a target cell, walking the player " +
    "behind the box before each push",
  parameters: {
    type: "object",
    properties: {
      row: cellParam("the box's row"),
      col: cellParam("the box's column"),
      path: {
        type: "string",
        minLength: 1,
        description:
          "the box's moves: letters U D L R and/or words up down left right (case-insensitive, optionally separated " +
          "by spaces or commas), e.g. \"RRDD\"; or a target cell \"R,C\" for a planned push-optimal route"
      }
    },
    required: ["row", "col", "path"]
  },
  result: okOrFailure({
    pushes: { type: "integer" },
    moves: { type: "integer" },
    box: { type: "array", items: { type: "integer" } },
    path: { type: "string" },
    won: { type: "boolean" },
    steps: { type: "string" }
  }),
  ...handWritten,
  source: pushSource,
  tests: [
    {
      name: "walks behind, pushes down, walks around, pushes right onto the target",
      input: { row: "2", col: "2", path: "DR" },
      expected: { ok: true, pushes: 2, moves: 3, box: [3, 3], path: "DR", won: true, steps: "rDldR" },
      host: { observe: [observed(`Symbols: legend line.\n${room0}`)], act: roomDR }
    },
    {
      name: "a target cell is planned (push-optimal: down, right)",
      input: { row: 2, col: 2, path: "3,3" },
      expected: { ok: true, pushes: 2, moves: 3, box: [3, 3], path: "DR", won: true, steps: "rDldR" },
      host: { observe: [observed(room0)], act: roomDR }
    },
    {
      name: "words are directions too",
      input: { row: 2, col: 2, path: "down, Right" },
      expected: { ok: true, pushes: 2, moves: 3, box: [3, 3], path: "DR", won: true, steps: "rDldR" },
      host: { observe: [observed(room0)], act: roomDR }
    },
    {
      name: "a box against a wall is blocked in front; no step is taken",
      input: { row: 3, col: 2, path: "D" },
      expected: { ok: false, reason: "blocked", step: 0, pushes: 0, moves: 0, box: [3, 2], at: "front", steps: "" },
      host: { observe: [observed(grid("#####", "#P__#", "#___#", "#_XO#", "#####"))] }
    },
    {
      name: "the cell behind the box cannot be reached",
      input: { row: 1, col: 2, path: "L" },
      expected: { ok: false, reason: "unreachable", step: 0, pushes: 0, moves: 0, box: [1, 2], steps: "" },
      host: { observe: [observed(grid("#####", "#PX_#", "###_#", "#__O#", "#####"))] }
    },
    {
      name: "no box at the cell",
      input: { row: 1, col: 1, path: "R" },
      expected: { ok: false, reason: "no-box", pushes: 0, moves: 0 },
      host: { observe: [observed(room0)] }
    },
    {
      name: "a path that is neither directions nor a cell",
      input: { row: 2, col: 2, path: "north" },
      expected: {
        ok: false,
        reason: "bad-argument",
        pushes: 0,
        moves: 0,
        detail: "path must be directions (U D L R / up down left right) or a target cell R,C"
      }
    }
  ]
}

/** Both Sokoban skills (admit `walk-to` and `push-box-along-path` in any order: neither calls the other). */
export const sokobanSkills: ReadonlyArray<Skill.SkillSpec> = [walkTo, pushBoxAlongPath]

// ---------------------------------------------------------------------------------------------------------------------
// Host side: the grid of a rendered state, legal pushes and the one-box planner (for groundings)

/** RAGEN's symbols → gym-sokoban cell codes (0 wall, 1 floor, 2 target, 3 box on target, 4 box, 5 player, 6 player on target). */
const CODES: Readonly<Record<string, number>> = { "#": 0, "_": 1, O: 2, "\u221A": 3, X: 4, P: 5, S: 6 }
const DR = [-1, 1, 0, 0] as const
const DC = [0, 0, -1, 1] as const
/** Direction letters, in the skills' order (Up, Down, Left, Right). */
export const LETTERS = "UDLR"

/** A parsed grid: gym-sokoban cell codes, row-major. */
export interface Grid {
  readonly width: number
  readonly height: number
  readonly cells: Uint8Array
  readonly player: number
}

/**
 * The grid of a text observation or rendering in RAGEN's symbols (the first block of lines made only of grid
 * symbols; a legend line before it is skipped), or undefined when there is none, rows differ in width, or the
 * player is missing or repeated.
 */
export const parseGrid = (text: string | undefined): Grid | undefined => {
  if (text === undefined) return undefined
  const rows: Array<string> = []
  for (const line of text.split("\n")) {
    const l = line.trimEnd()
    if (/^[#_OX\u221APS]+$/.test(l)) rows.push(l)
    else if (rows.length > 0) break
  }
  if (rows.length === 0) return undefined
  const width = rows[0]!.length
  const cells = new Uint8Array(width * rows.length)
  let player = -1
  for (let r = 0; r < rows.length; r++) {
    if (rows[r]!.length !== width) return undefined
    for (let c = 0; c < width; c++) {
      const k = CODES[rows[r]![c]!]!
      if (k === 5 || k === 6) {
        if (player >= 0) return undefined
        player = r * width + c
      }
      cells[r * width + c] = k
    }
  }
  return player < 0 ? undefined : { width, height: rows.length, cells, player }
}

const isBox = (g: Grid, i: number) => g.cells[i] === 3 || g.cells[i] === 4
const neighbour = (g: Grid, i: number, d: number): number => {
  const r = Math.floor(i / g.width) + DR[d]!
  const c = (i % g.width) + DC[d]!
  return r < 0 || r >= g.height || c < 0 || c >= g.width ? -1 : r * g.width + c
}
/** 1 where a wall or a box other than `except` is. */
const blockedCells = (g: Grid, except: number): Uint8Array => {
  const b = new Uint8Array(g.cells.length)
  for (let i = 0; i < b.length; i++) b[i] = g.cells[i] === 0 || (isBox(g, i) && i !== except) ? 1 : 0
  return b
}
/** Cells reachable from `from` avoiding `blocked` and `extra` (1 = reachable). */
const reachable = (g: Grid, from: number, blocked: Uint8Array, extra: number): Uint8Array => {
  const seen = new Uint8Array(g.cells.length)
  const queue = new Int32Array(g.cells.length)
  let tail = 0
  seen[from] = 1
  queue[tail++] = from
  for (let head = 0; head < tail; head++) {
    for (let d = 0; d < 4; d++) {
      const y = neighbour(g, queue[head]!, d)
      if (y < 0 || seen[y] === 1 || blocked[y] === 1 || y === extra) continue
      seen[y] = 1
      queue[tail++] = y
    }
  }
  return seen
}

/** The legal one-step pushes of a state: a box, a direction (0 Up, 1 Down, 2 Left, 3 Right), the player's cell to push from. */
export const legalPushes = (g: Grid): Array<{ readonly box: number; readonly dir: number; readonly from: number }> => {
  const blocked = blockedCells(g, -1)
  const reach = reachable(g, g.player, blocked, -1)
  const out: Array<{ box: number; dir: number; from: number }> = []
  for (let box = 0; box < g.cells.length; box++) {
    if (!isBox(g, box)) continue
    for (let dir = 0; dir < 4; dir++) {
      const front = neighbour(g, box, dir)
      const from = neighbour(g, box, dir ^ 1)
      if (front >= 0 && from >= 0 && blocked[front] === 0 && reach[from] === 1) out.push({ box, dir, from })
    }
  }
  return out
}

/**
 * A push-optimal route (letters `UDLR`) for the box at cell `box` to cell `target`, other boxes fixed: breadth-first
 * search over (box cell, last push direction) states, the player's reach recomputed per state — the same planner as
 * the skill's target form (same tie-breaking). Undefined when no route exists or `box` holds no box.
 */
export const planBoxPath = (g: Grid, box: number, target: number): string | undefined => {
  if (!isBox(g, box) || target < 0 || target >= g.cells.length) return undefined
  if (box === target) return ""
  const blocked = blockedCells(g, box)
  if (blocked[target] === 1) return undefined
  const prev = new Int32Array(g.cells.length * 4).fill(-2)
  const queue: Array<number> = []
  const expand = (b: number, p: number, parent: number): number => {
    const reach = reachable(g, p, blocked, b)
    for (let d = 0; d < 4; d++) {
      const front = neighbour(g, b, d)
      const behind = neighbour(g, b, d ^ 1)
      if (front < 0 || behind < 0 || blocked[front] === 1 || reach[behind] === 0) continue
      const s = front * 4 + d
      if (prev[s] !== -2) continue
      prev[s] = parent
      if (front === target) return s
      queue.push(s)
    }
    return -1
  }
  let found = expand(box, g.player, -1)
  for (let h = 0; found < 0 && h < queue.length; h++) {
    const b = Math.floor(queue[h]! / 4)
    found = expand(b, neighbour(g, b, (queue[h]! % 4) ^ 1), queue[h]!)
  }
  if (found < 0) return undefined
  let out = ""
  for (let s = found; s !== -1; s = prev[s]!) out = LETTERS[s % 4]! + out
  return out
}

/** Which groundings {@link sokobanOptions} offers. */
export interface SokobanOptionsConfig {
  /** Each box off target → each free target the one-box planner reaches, as `R C TR,TC` (default true). */
  readonly boxToTarget?: boolean
  /** Each legal one-step push, as `R C U|D|L|R` (default true). */
  readonly oneStepPushes?: boolean
  /** `walk-to` the cells from which a legal push starts (default false). */
  readonly walkTo?: boolean
}

const gridOf = (env: TextEnv): Grid | undefined => parseGrid(env.render() ?? undefined)
const rc = (g: Grid, i: number): [string, string] => [String(Math.floor(i / g.width)), String(i % g.width)]

/**
 * Options over the Sokoban skills, grounded in the current state read from `env.render()` (RAGEN's symbols):
 * `push-box-along-path R C TR,TC` for each box off target and each free target (a target cell without a box) the
 * one-box planner reaches; `push-box-along-path R C D` for each legal one-step push (the player can walk behind the
 * box, the cell in front is floor or target); and, with `walkTo`, `walk-to R C` for each cell a legal push starts
 * from. Boxes are listed in row-major order, directions Up, Down, Left, Right, targets row-major. An env whose
 * rendering holds no grid gets no skill commands.
 */
export const sokobanOptions = (config: SokobanOptionsConfig = {}): Array<SkillOption> => {
  const params = ["row", "col", "path"]
  const out: Array<SkillOption> = []
  if (config.boxToTarget ?? true) {
    out.push({
      name: pushBoxAlongPath.name,
      params,
      ground: (env) => {
        const g = gridOf(env)
        if (g === undefined) return []
        const targets: Array<number> = []
        for (let i = 0; i < g.cells.length; i++) if (g.cells[i] === 2 || g.cells[i] === 6) targets.push(i)
        const args: Array<Array<string>> = []
        for (let box = 0; box < g.cells.length; box++) {
          if (g.cells[box] !== 4) continue
          for (const t of targets) if (planBoxPath(g, box, t) !== undefined) args.push([...rc(g, box), rc(g, t).join(",")])
        }
        return args
      }
    })
  }
  if (config.oneStepPushes ?? true) {
    out.push({
      name: pushBoxAlongPath.name,
      params,
      ground: (env) => {
        const g = gridOf(env)
        return g === undefined ? [] : legalPushes(g).map((p) => [...rc(g, p.box), LETTERS[p.dir]!])
      }
    })
  }
  if (config.walkTo ?? false) {
    out.push({
      name: walkTo.name,
      params: ["row", "col"],
      ground: (env) => {
        const g = gridOf(env)
        if (g === undefined) return []
        const cells = [...new Set(legalPushes(g).map((p) => p.from))].filter((c) => c !== g.player).sort((a, b) => a - b)
        return cells.map((c) => rc(g, c))
      }
    })
  }
  return out
}
