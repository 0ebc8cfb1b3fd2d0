extension BidirectionalCollection where Element == UInt8, SubSequence == Self {
    /// A header value's item without the optional whitespace around it (RFC 9110 §5.6.3: spaces and tabs), on bytes:
    /// Foundation's trimming bridged through `NSString` on every request that read a header so.
    var trimmingOptionalWhitespace: Self {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        var item = drop(while: blank)
        while let last = item.last, blank(last) { item = item.dropLast() }
        return item
    }
}
