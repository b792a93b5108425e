import ArgumentParser
import LightboxMetadata

/// `--memory-budget`, shared by the long-running commands (`serve`, `worker`).
struct MemoryBudgetOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The memory decodes, metadata, movies, edits and captures may hold at once, such as 768M or 2G (default: $LIGHTBOX_MEMORY_BUDGET, else 1G); work that does not fit waits.",
            valueName: "SIZE"))
    var memoryBudget: String?

    func validate() throws {
        guard let memoryBudget else { return }
        guard let bytes = MemoryBudget.bytes(from: memoryBudget), bytes >= MemoryBudget.smallestLimit else {
            throw ValidationError(
                "--memory-budget must be a size of at least \(MemoryBudget.smallestLimit >> 20)M, such as 768M or 2G, not \(memoryBudget)"
            )
        }
    }

    /// Sets the process's budget when one was given; the budget in force, for a message.
    @discardableResult
    func apply() -> Int {
        if let bytes = memoryBudget.flatMap(MemoryBudget.bytes(from:)) { MemoryBudget.shared.limit = bytes }
        return MemoryBudget.shared.limit
    }
}
