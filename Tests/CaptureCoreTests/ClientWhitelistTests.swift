import CaptureCore
import Foundation
import Testing

/// Issue 51: a client's IP allow-list for Janrain's server API, parsed as the trusted proxies' ranges are.
@Suite struct ClientWhitelistTests {
    @Test func anEmptyListOrARangeOfLengthZeroAllowsAnyAddress() throws {
        for entries in [[], ["0.0.0.0/0"], ["::/0"], ["192.0.2.1", "0.0.0.0/0"]] {
            let list = try #require(ClientWhitelist(entries))
            #expect(list.allowsAnywhere, "\(entries)")
            #expect(list.allows("2001:db8::7") && list.allows("198.51.100.9") && list.allows(nil), "\(entries)")
        }
    }

    @Test func onlyListedAddressesAndRangesAreAllowed() throws {
        let list = try #require(ClientWhitelist(["192.0.2.0/24", " 2001:db8::1 ", "10.1.2.3"]))
        #expect(!list.allowsAnywhere)
        for allowed in ["192.0.2.1", "192.0.2.255", "2001:db8::1", "10.1.2.3", "::ffff:192.0.2.9"] {
            #expect(list.allows(allowed), "\(allowed)")
        }
        for refused in ["192.0.3.1", "10.1.2.4", "2001:db8::2", "example.com", "", nil] as [String?] {
            #expect(!list.allows(refused), "\(refused ?? "nil")")
        }
    }

    @Test func entriesThatAreNotAddressesAreRefusedWithAReason() {
        for bad in ["192.0.2.0/33", "example.com", "10.0.0.1/", "*", "fd00::/129"] {
            #expect(ClientWhitelist([bad]) == nil, "\(bad)")
            #expect(ClientWhitelist.problem(with: [bad])?.contains("CIDR") == true, "\(bad)")
        }
        #expect(ClientWhitelist.problem(with: Array(repeating: "10.0.0.1", count: 101)) != nil)
        #expect(ClientWhitelist.normalized([" 10.0.0.0/8 "]) == ["10.0.0.0/8"])
    }

    @Test func aClientIsCheckedByItsStoredList() {
        var client = Client(clientID: "backend", name: "Backend", createdAt: Date())
        #expect(client.allowsCall(from: "203.0.113.5"))
        client.whitelist = ["198.51.100.0/24"]
        #expect(client.allowsCall(from: "198.51.100.20") && !client.allowsCall(from: "203.0.113.5"))
        client.whitelist = ["not an address"]
        #expect(!client.allowsCall(from: "198.51.100.20"), "a list that does not parse allows nothing")
    }
}
