import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
const solve = Command.make("solve", { game: Flag.String("game").pipe(Flag.withDescription("x")), it: Flag.Int("iterations").pipe(Flag.withDefault(1000)) }, (c) => Effect.promise(() => import("effect/Stream")).pipe(Effect.asVoid))
const app = Command.make("autodidact").pipe(Command.withSubcommands([Command.make("games").pipe(Command.withSubcommands([solve]))]))
Command.run(app, { version: "0.1.0" }).pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
