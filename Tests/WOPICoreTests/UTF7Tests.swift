import Testing
import WOPICore

/// RFC 2152 UTF-7, as used for WOPI name headers.
@Suite("UTF7")
struct UTF7Tests {
    @Test(
        "RFC 2152's examples and other encoders' output decode to the text",
        arguments: [
            ("Hi Mom -+Jjo--!", "Hi Mom -☺-!"),
            ("+ZeVnLIqe-", "日本語"),
            ("A+ImIDkQ.", "A≢Α."),
            ("Item 3 is +AKM-1.", "Item 3 is £1."),
            ("+2D3eAA-", "😀"),
            ("a+2D3eAA-b", "a😀b"),
            ("+AH4-/x+AFw-y", "~/x\\y"),
            ("a+-b", "a+b"),
            ("+-+-", "++"),
            ("+ANw-n+AO8-c+APY-d+AOk +IBM +IBw-quotes+IB0.docx", "Ünïcödé – “quotes”.docx"),
            ("plain name.docx", "plain name.docx"),
            ("", ""),
            ("+AGE--", "a-"),  // the first "-" ends the shift, the second is text
            ("+AGEAYgBj-", "abc"),
            ("+AGE!x", "a!x"),  // "!" ends the shift implicitly after a complete 'a'
            ("+AGE=", "a="),  // "=" is not base64 in UTF-7: no padding, just text  // direct characters may also be encoded
            ("tab\there", "tab\there"),
            ("~\\", "~\\"),  // lenient: printable ASCII outside sets D and O read as itself
        ]
    )
    func decode(encoded: String, text: String) throws {
        #expect(try UTF7.decode(encoded) == text)
    }

    @Test(
        "encoding matches RFC 2152's examples and Python's utf-7 codec",
        arguments: [
            ("Hi Mom -☺-!", "Hi Mom -+Jjo--!"),
            ("日本語", "+ZeVnLIqe-"),
            ("A≢Α.", "A+ImIDkQ."),
            ("Item 3 is £1.", "Item 3 is +AKM-1."),
            ("😀", "+2D3eAA-"),
            ("a😀b", "a+2D3eAA-b"),
            ("~/x\\y", "+AH4-/x+AFw-y"),
            ("a+b", "a+-b"),
            ("Ünïcödé – “quotes”.docx", "+ANw-n+AO8-c+APY-d+AOk +IBM +IBw-quotes+IB0.docx"),
            ("", ""),
            ("line\nbreak", "line+AAo-break"),  // keeps header values on one line
        ]
    )
    func encode(text: String, encoded: String) {
        #expect(UTF7.encode(text) == encoded)
    }

    @Test("random strings with emoji, surrogates, controls, + and - survive a round trip")
    func randomRoundTrips() throws {
        var generator = SplitMix64(seed: 0x5EED_2152)
        let pools: [ClosedRange<UInt32>] = [
            0x20...0x7E,  // ASCII, including + - and base64 letters
            0x00...0x1F,  // controls
            0xA0...0x24F,  // Latin
            0x4E00...0x9FFF,  // CJK
            0x1F300...0x1FAFF,  // emoji: surrogate pairs in UTF-16
            0x10000...0x10FFFF,  // any supplementary plane
            0xE000...0xFFFD,  // private use and specials
        ]
        for _ in 0..<2_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...24, using: &generator) {
                let pool = pools.randomElement(using: &generator) ?? pools[0]
                if let scalar = Unicode.Scalar(UInt32.random(in: pool, using: &generator)) {
                    text.append(scalar)
                }
            }
            let string = String(text)
            let encoded = UTF7.encode(string)
            #expect(encoded.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }, "not printable ASCII: \(encoded)")
            #expect(try UTF7.decode(encoded) == string, "round trip of \(string.debugDescription) via \(encoded)")
        }
    }

    @Test(
        "invalid UTF-7 is refused with an error naming the problem",
        arguments: [
            ("é", UTF7.DecodingError.characterNotAllowed("é", offset: 0)),
            ("abc日本", .characterNotAllowed("日", offset: 3)),
            ("a\u{01}b", .characterNotAllowed("\u{01}", offset: 1)),
            ("\u{7F}", .characterNotAllowed("\u{7F}", offset: 0)),
            ("+ZeVnLIqe-é", .characterNotAllowed("é", offset: 10)),
            ("+", .unterminatedShift(offset: 0)),
            ("abc+", .unterminatedShift(offset: 3)),
            ("+ZeVnLIqe", .unterminatedShift(offset: 0)),
            ("ok +AGE", .unterminatedShift(offset: 3)),
            ("+!", .emptyShift(offset: 0)),
            ("a+ b", .emptyShift(offset: 1)),
            ("+.", .emptyShift(offset: 0)),
            ("+AG-", .strayBits(offset: 3)),  // 12 bits: not a UTF-16 unit
            ("+AGF-", .strayBits(offset: 4)),  // 'a' plus non-zero padding bits
            ("+AGEA-", .strayBits(offset: 5)),  // 'a' plus 8 bits
            ("+2D0-", .unpairedSurrogate(0xD83D, offset: 4)),  // high surrogate alone
            ("+3gA-", .unpairedSurrogate(0xDE00, offset: 3)),  // low surrogate alone
            ("+2D0AYQ-", .unpairedSurrogate(0xD83D, offset: 6)),  // high surrogate, then 'a'
            ("+2D0-+3gA-", .unpairedSurrogate(0xD83D, offset: 4)),  // a pair split across shifts
        ]
    )
    func invalid(encoded: String, error: UTF7.DecodingError) {
        #expect(throws: error) { try UTF7.decode(encoded) }
    }

    @Test("error descriptions name the problem and the offset")
    func descriptions() {
        #expect(UTF7.DecodingError.characterNotAllowed("é", offset: 2).description
            == "invalid UTF-7: character U+E9 at offset 2 is not allowed unencoded")
        #expect(UTF7.DecodingError.unterminatedShift(offset: 0).description.contains("not terminated"))
        #expect(UTF7.DecodingError.strayBits(offset: 4).description.contains("stray bits"))
        #expect(UTF7.DecodingError.unpairedSurrogate(0xD83D, offset: 4).description.contains("0xD83D"))
        #expect(UTF7.DecodingError.emptyShift(offset: 1).description.contains("'+' at offset 1"))
    }
}

/// A small seeded generator, so random tests are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
