/**
 * `@autodidact/search/node`: the parts of search that need Node's file system — the archive file of an archive search
 * (`Archive.run`'s state, written atomically after each step so an interrupted search resumes).
 * @since 0.1.0
 */
export * as ArchiveFile from "./ArchiveFile.js"
