/// The URL and query-string rules Microsoft's runner applies when it builds WOPI URLs.
enum URLQuery {
    private static let hex = Array("0123456789ABCDEF".utf8)

    /// Percent-encodes every byte of the UTF-8 form except ASCII letters and digits (the runner's
    /// `UrlKeyValueEncode`, used for `access_token` on the WOPISrc).
    static func keyValueEncode(_ s: String) -> String {
        var out: [UInt8] = []
        for byte in s.utf8 {
            if isAlphanumeric(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Form encoding as .NET's `HttpUtility.UrlEncode`: letters, digits and `-_.!*()` stay, space becomes `+`,
    /// every other UTF-8 byte becomes lowercase `%xx`.
    static func formEncode(_ s: String) -> String {
        let lowerHex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in s.utf8 {
            if isAlphanumeric(byte) || "-_.!*()".utf8.contains(byte) {
                out.append(byte)
            } else if byte == 0x20 {
                out.append(UInt8(ascii: "+"))
            } else {
                out += [UInt8(ascii: "%"), lowerHex[Int(byte >> 4)], lowerHex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Form decoding as `HttpUtility.UrlDecode`: `+` is a space, `%xx` a byte.
    static func formDecode(_ s: String) -> String {
        var out: [UInt8] = []
        let bytes = Array(s.utf8)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "+") {
                out.append(0x20)
            } else if b == UInt8(ascii: "%"), i + 2 < bytes.count, let h = hexValue(bytes[i + 1]), let l = hexValue(bytes[i + 2]) {
                out.append(h << 4 | l)
                i += 2
            } else {
                out.append(b)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The decoded value of query parameter `name` (matched case-insensitively), or `nil` when absent.
    static func parameter(_ name: String, in url: String) -> String? {
        guard let range = parameterRange(name, in: url) else { return nil }
        return formDecode(String(url[range.value]))
    }

    /// `url` with parameter `name` set to `value` (form-encoded), replacing an existing one or appending it
    /// before any fragment.
    static func settingParameter(_ name: String, to value: String, in url: String) -> String {
        let encodedName = formEncode(name)
        let encodedValue = formEncode(value)
        if let range = parameterRange(encodedName, in: url) {
            return String(url[..<range.value.lowerBound]) + encodedValue + String(url[range.value.upperBound...])
        }
        let separator = url.contains("?") ? "&" : "?"
        if let hash = url.firstIndex(of: "#") {
            return String(url[..<hash]) + separator + encodedName + "=" + encodedValue + String(url[hash...])
        }
        return url + separator + encodedName + "=" + encodedValue
    }

    /// The range of the value of `?name=` or `&name=` (ASCII case-insensitive), the first occurrence of `?name=`
    /// winning as in the original.
    private static func parameterRange(_ name: String, in url: String) -> (whole: Range<String.Index>, value: Range<String.Index>)? {
        for prefix in ["?", "&"] {
            let needle = (prefix + name + "=").lowercased()
            var index = url.startIndex
            while index < url.endIndex {
                if url[index...].prefix(needle.count).lowercased() == needle {
                    let valueStart = url.index(index, offsetBy: needle.count)
                    let valueEnd = url[valueStart...].firstIndex(where: { $0 == "&" || $0 == "#" }) ?? url.endIndex
                    return (index..<valueEnd, valueStart..<valueEnd)
                }
                index = url.index(after: index)
            }
        }
        return nil
    }

    /// Inserts `suffix` at the end of the URL's path, before any query or fragment (the runner's `UriBuilder`).
    static func appendingPath(_ suffix: String, to url: String) -> String {
        let schemeEnd = url.firstRange(of: "://")?.upperBound ?? url.startIndex
        let split = url[schemeEnd...].firstIndex(where: { $0 == "?" || $0 == "#" }) ?? url.endIndex
        return String(url[..<split]) + suffix + String(url[split...])
    }

    private static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }
}

