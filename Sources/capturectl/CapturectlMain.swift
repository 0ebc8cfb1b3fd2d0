import CaptureCLI

/// `capturectl`: all commands live in CaptureCLI.
@main
enum CapturectlMain {
    static func main() async {
        await Capturectl.main()
    }
}
