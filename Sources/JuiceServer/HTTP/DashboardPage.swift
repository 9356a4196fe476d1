/// The dashboard page (placeholder until the page lands).
enum DashboardPage {
    static let html = "<!doctype html><title>juice dashboard</title><p>dashboard</p>"
}
