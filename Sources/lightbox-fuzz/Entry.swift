import Foundation

// Built by `make fuzz` (scripts/fuzz) with `--sanitize fuzzer` and `-DFUZZING`: libFuzzer's
// own `main` drives the target that LIGHTBOX_FUZZ_TARGET names. In an ordinary build the
// command replays inputs instead: `lightbox-fuzz TARGET FILE...`, each file once.

#if FUZZING
    /// The target of this process, read once.
    private let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["LIGHTBOX_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("LIGHTBOX_FUZZ_TARGET must name a target: \(names)\n".utf8))
            exit(2)
        }
        return target
    }()

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
        selected.run(data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
        return 0
    }
#else
    @main
    enum Replay {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
                let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
                FileHandle.standardError.write(Data("usage: lightbox-fuzz \(names) FILE...\n".utf8))
                exit(2)
            }
            for path in arguments.dropFirst() {
                guard let bytes = FileManager.default.contents(atPath: path) else {
                    FileHandle.standardError.write(Data("lightbox-fuzz: cannot read \(path)\n".utf8))
                    exit(1)
                }
                target.run(Array(bytes))
            }
        }
    }
#endif
