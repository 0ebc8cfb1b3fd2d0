import CaptureTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP socket bound to 127.0.0.1 on a port the kernel picks.
private func boundLoopbackSocket() throws -> (descriptor: Int32, port: Int) {
    #if canImport(Glibc)
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { throw ServerError(description: "socket() failed") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
        }
    }
    guard bound else {
        close(descriptor)
        throw ServerError(description: "bind() failed")
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}

/// A port nothing listens on: bound, then closed, so a connection is refused.
func unusedLoopbackPort() throws -> Int {
    let (descriptor, port) = try boundLoopbackSocket()
    close(descriptor)
    return port
}

/// A server that lets clients connect and then says nothing, ever: it listens but never accepts, so the kernel
/// completes each handshake and the connection sits in the backlog.
final class SilentListener {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let (descriptor, port) = try boundLoopbackSocket()
        guard listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw ServerError(description: "listen() failed")
        }
        self.descriptor = descriptor
        self.port = port
    }

    func stop() { close(descriptor) }
}
