/**
 * `@autodidact/memory/replay/node`: saving and loading replay buffers on Node (`node:fs`, `node:crypto`), kept out of
 * `@autodidact/memory/replay` so that the buffers bundle for browsers. `ReplayFile.saveSync(buffer, path)` /
 * `ReplayFile.loadSync(path, PrioritizedReplay.PrioritizedReplay)` (plain, throwing `ReplayIoError` /
 * `CorruptReplayFileError`), `ReplayFile.save` / `ReplayFile.load` (Effects), and the file format itself.
 * @since 0.1.0
 */
export * as ReplayFile from "./ReplayFile.js"
