/**
 * What `effect/cli` needs from Node (file system, path, stdio, terminal, child processes): the layer of
 * `@effect/platform-node`'s `NodeServices`, composed from `@effect/platform-node-shared` 4.0, which supports Node 20
 * (`@effect/platform-node` 4.1 declares Node >= 22.19 and brings undici 8, which needs it).
 * @since 0.1.0
 */
import * as NodeChildProcessSpawner from "@effect/platform-node-shared/NodeChildProcessSpawner"
import * as NodeFileSystem from "@effect/platform-node-shared/NodeFileSystem"
import * as NodePath from "@effect/platform-node-shared/NodePath"
import * as NodeStdio from "@effect/platform-node-shared/NodeStdio"
import * as NodeTerminal from "@effect/platform-node-shared/NodeTerminal"
import { Layer } from "effect"

export const layer = Layer.provideMerge(
  NodeChildProcessSpawner.layer,
  Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeStdio.layer, NodeTerminal.layer)
)
