/// The board page (placeholder until the page lands).
enum BoardPage {
    static let html = "<!doctype html><title>juice board</title><p>juice board</p>"
}
