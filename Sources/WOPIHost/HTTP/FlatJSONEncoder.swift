import Foundation
import NIOCore
import NIOConcurrencyHelpers

/// A fast path for ``WOPIJSON``'s flat answers: a value whose properties are strings,
/// booleans, integers, optionals of those, or string arrays — CheckFileInfo, CheckContainerInfo and
/// most other WOPI bodies — is written straight into a buffer, PascalCase keys sorted by their UTF-8
/// bytes, with the same bytes `WOPIJSON.encoder` produces.
///
/// Foundation's encoder built a tree of boxed values, dictionaries and sorted them per answer: a
/// seventh of CheckFileInfo's profile. Anything else (nested objects, floating point, dates, …)
/// makes ``encode(_:)`` return `nil`, and the caller uses Foundation's encoder, so the fast path
/// never changes what is sent. Tests compare both encoders' bytes for every type that takes it.
enum FlatJSONEncoder {
    /// The JSON text of `value`, or `nil` when it is not flat (the caller then encodes it the usual way).
    static func encode(_ value: some Encodable) -> ByteBuffer? {
        // Foundation writes dictionary keys as they are (no key strategy); leave collections to it.
        guard !(value is any Collection) else { return nil }
        let encoder = Recorder()
        do { try value.encode(to: encoder) } catch { return nil }
        guard !encoder.unsupported, encoder.isObject else { return nil }
        let layout = layouts.layout(for: type(of: value), keys: encoder.keys)
        var output = ByteBuffer()
        output.reserveCapacity(encoder.values.readableBytes + layout.keyBytes + layout.order.count + 2)
        output.writeStaticString("{")
        encoder.values.withUnsafeReadableBytes { values in
            for (position, index) in layout.order.enumerated() {
                if position > 0 { output.writeStaticString(",") }
                output.writeBytes(layout.keyTexts[index])
                output.writeBytes(UnsafeRawBufferPointer(rebasing: values[encoder.ranges[index]]))
            }
        }
        output.writeStaticString("}")
        return output
    }

    /// Where each key of a type goes: the keys an answer recorded, in the order its `encode(to:)` wrote
    /// them, and that order sorted by PascalCase name, each key's `"Key":` text made once (    /// sorting and converting keys per answer was a fifth of the encoder's time).
    struct Layout: Sendable {
        let keys: [String]
        let order: [Int]
        let keyTexts: [[UInt8]]
        let keyBytes: Int

        init(keys: [String]) {
            self.keys = keys
            let names = keys.map(WOPIJSON.pascalCase)
            order = names.indices.sorted { names[$0].utf8.lexicographicallyPrecedes(names[$1].utf8) }
            keyTexts = names.map { name in
                var text = ByteBuffer()
                JSONText.writeString(name, to: &text)
                text.writeStaticString(":")
                return Array(text.readableBytesView)
            }
            keyBytes = keyTexts.reduce(0) { $0 + $1.count }
        }
    }

    /// The layouts seen so far, a few per type: a type whose optionals are sometimes `nil` records
    /// different key lists, and any list not seen before gets its own layout.
    final class Layouts: Sendable {
        // A pthread mutex rather than Synchronization's Mutex, whose locking ThreadSanitizer on Linux does not see.
        private let known = NIOLockedValueBox<[ObjectIdentifier: [Layout]]>([:])

        func layout(for type: Any.Type, keys: [String]) -> Layout {
            let id = ObjectIdentifier(type)
            if let layout = known.withLockedValue({ $0[id]?.first { $0.keys == keys } }) { return layout }
            let layout = Layout(keys: keys)
            known.withLockedValue { known in
                // Bounded: a type with many optionals cannot grow the table past a few layouts.
                var layouts = known[id] ?? []
                if layouts.count >= 8 { layouts.removeFirst() }
                layouts.append(layout)
                known[id] = layouts
            }
            return layout
        }
    }

    static let layouts = Layouts()

    /// Refuses what the fast path does not write.
    private struct Unsupported: Error {}

    /// Collects `key: value` pairs; the values' JSON text goes into one buffer.
    private final class Recorder: Encoder {
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        var keys: [String] = []
        var ranges: [Range<Int>] = []
        var values = ByteBuffer()

        init() {
            keys.reserveCapacity(40)
            ranges.reserveCapacity(40)
            values.reserveCapacity(1024)
        }
        var unsupported = false
        var isObject = false

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            if isObject { unsupported = true }
            isObject = true
            return KeyedEncodingContainer(Keyed<Key>(recorder: self))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            unsupported = true
            return Refusing()
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            unsupported = true
            return Refusing()
        }

        func add(_ key: some CodingKey, _ write: (inout ByteBuffer) -> Void) {
            let start = values.writerIndex
            write(&values)
            keys.append(key.stringValue)
            ranges.append(start..<values.writerIndex)
        }
    }

    private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let recorder: Recorder
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) throws { recorder.add(key) { $0.writeStaticString("null") } }
        mutating func encode(_ value: Bool, forKey key: Key) throws {
            recorder.add(key) { _ = value ? $0.writeStaticString("true") : $0.writeStaticString("false") }
        }
        mutating func encode(_ value: String, forKey key: Key) throws { recorder.add(key) { JSONText.writeString(value, to: &$0) } }
        mutating func encode(_ value: Int, forKey key: Key) throws { recorder.add(key) { $0.writeString(String(value)) } }
        mutating func encode(_ value: Int8, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { recorder.add(key) { $0.writeString(String(value)) } }
        mutating func encode(_ value: UInt, forKey key: Key) throws { recorder.add(key) { $0.writeString(String(value)) } }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { try encode(UInt(value), forKey: key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { try encode(UInt(value), forKey: key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { try encode(UInt(value), forKey: key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { recorder.add(key) { $0.writeString(String(value)) } }
        // Foundation writes floating point its own way; leave those to it.
        mutating func encode(_ value: Double, forKey key: Key) throws { throw Unsupported() }
        mutating func encode(_ value: Float, forKey key: Key) throws { throw Unsupported() }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            switch value {
            case let text as String: try encode(text, forKey: key)
            case let flag as Bool: try encode(flag, forKey: key)
            case let number as Int: try encode(number, forKey: key)
            case let number as Int64: try encode(number, forKey: key)
            case let texts as [String]:
                recorder.add(key) { buffer in
                    buffer.writeStaticString("[")
                    for (index, text) in texts.enumerated() {
                        if index > 0 { buffer.writeStaticString(",") }
                        JSONText.writeString(text, to: &buffer)
                    }
                    buffer.writeStaticString("]")
                }
            default: throw Unsupported()
            }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            recorder.unsupported = true
            return KeyedEncodingContainer(Keyed<NestedKey>(recorder: Recorder()))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            recorder.unsupported = true
            return Refusing()
        }

        mutating func superEncoder() -> any Encoder {
            recorder.unsupported = true
            return Recorder()
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            recorder.unsupported = true
            return Recorder()
        }
    }

    /// Stands in for containers the fast path does not support; every call fails.
    private struct Refusing: UnkeyedEncodingContainer, SingleValueEncodingContainer {
        var codingPath: [any CodingKey] { [] }
        var count: Int { 0 }

        mutating func encodeNil() throws { throw Unsupported() }
        mutating func encode<T: Encodable>(_ value: T) throws { throw Unsupported() }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(Keyed<NestedKey>(recorder: Recorder()))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { Refusing() }
        mutating func superEncoder() -> any Encoder { Recorder() }
    }
}
