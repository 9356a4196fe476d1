import JuiceCore

// The JuiceCore types that JuiceClient's API hands out or takes, named here so that a program
// needs only `import JuiceClient` to write them down (`let menu: Menu = state.menu`). They are
// JuiceCore's only `public` types; the rest of JuiceCore (the server's wire encoders, parsers,
// journal records and ledger) is `package`. Typealiases rather than `@_exported import JuiceCore`:
// JuiceClient's own API says which names it adds, DocC documents them as JuiceClient's, and a
// type made `public` in JuiceCore later for another reason does not silently join a client's
// namespace. They are the same types, so code that imports both modules is unaffected.

/// The server's menu: its fruits and its juices with their recipes (`ShopState.menu`).
public typealias Menu = JuiceCore.Menu
/// Why `Menu.init` refused a menu (a program that builds one, e.g. for a `ShopState` in its tests).
public typealias MenuError = JuiceCore.MenuError
/// One fruit of the menu, with its other names.
public typealias Fruit = JuiceCore.Fruit
/// One juice of the menu: its name, other names and recipe.
public typealias Juice = JuiceCore.Juice
/// One line of a recipe: the index of a fruit in `Menu.fruits` and how much of it a juice takes.
public typealias Ingredient = JuiceCore.Ingredient
/// Other names (e.g. Korean) of each fruit and juice (`ShopState.aliases`).
public typealias MenuAliases = JuiceCore.MenuAliases
/// The server's counters, as `JuiceClient.stats()` returns them (JuiceCore's `StatsValues`).
public typealias Stats = JuiceCore.StatsValues
/// The journal's counters within `Stats` (nil for an in-memory server).
public typealias JournalCounts = JuiceCore.JournalCounts
/// A seq and fruit values, as the protocol lists them (`ShopState.snapshot`).
public typealias StockUpdate = JuiceCore.StockUpdate
/// One line from the server, read by `ServerLine.parse` (what `StockSync.receive` digests).
public typealias ServerLine = JuiceCore.ServerLine
/// The menu's currency (`Prices.currency`): its ISO 4217 code, its minor-unit digits, and
/// `format(_:)`, which shows an amount in minor units as a person reads it (`₩11,000`, `$4.50`).
public typealias Currency = JuiceCore.Currency
/// Why a sale is voided (`JuiceClient.void(sale:reason:key:)`): wrong juice, customer left, other.
public typealias VoidReason = JuiceCore.VoidReason
