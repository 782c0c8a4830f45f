import Foundation

#if canImport(Glibc)
  import Glibc
#endif

// The networking half of `wellflow`: sends the HTTP requests `wellflow` hands it (framed
// on standard input; see HTTPAgentFrames) through URLSession and writes the answers to
// standard output. `wellflow` starts it at its first sync, so commands that never sync
// never load the networking libraries.
signal(SIGPIPE, SIG_IGN)
exit(await HTTPAgent.serve())
