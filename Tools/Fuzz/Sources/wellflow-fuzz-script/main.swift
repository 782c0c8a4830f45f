import CLibFuzzer
import Foundation
import WellflowFuzz

// SwiftPM links an executable's `main` to this file's top-level code, so the program
// starts libFuzzer's driver itself, with the script loader as the target.
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(
  LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    Harness.fuzzScript(UnsafeBufferPointer(start: data, count: size))
    return 0
  })

/// Extreme values in scalar slots now and then (see `ValueMutator`).
@_cdecl("LLVMFuzzerCustomMutator")
public func customMutator(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32)
  -> Int
{
  ValueMutator.mutate(data, size, maxSize, seed)
}
