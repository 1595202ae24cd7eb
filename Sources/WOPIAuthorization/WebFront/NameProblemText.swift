import Foundation
import WOPICore

extension PageLanguage {
    /// Why a name is refused, as a whole sentence in this language for the web front's
    /// "The name is not allowed: %@".
    ///
    /// The offending character is quoted as typed (a character the eye cannot see, by its code
    /// point) and its position is counted from 1, as people count.
    func nameProblem(_ problem: WOPIName.ValidationError) -> String {
        switch problem {
        case .empty:
            return text(en: "it is empty.", de: "Er ist leer.", zh: "名称为空。")
        case let .refusedCharacter(character, offset):
            let quoted = String(character)
            return text(en: PageText.fill("the character “%@” at position %@ cannot be used in Office for iOS.", quoted, String(offset + 1)),
                        de: PageText.fill("Das Zeichen „%@“ an Position %@ ist in Office für iOS nicht erlaubt.", quoted, String(offset + 1)),
                        zh: PageText.fill("第 %@ 个字符“%@”不能在 iOS 版 Office 中使用。", String(offset + 1), quoted))
        case let .controlCharacter(scalar, offset):
            let code = Self.codePoint(scalar)
            return text(en: PageText.fill("the control character %@ at position %@ cannot be part of a name.", code, String(offset + 1)),
                        de: PageText.fill("Das Steuerzeichen %@ an Position %@ darf nicht in einem Namen stehen.", code, String(offset + 1)),
                        zh: PageText.fill("第 %@ 个字符是控制字符 %@，不能用于名称。", String(offset + 1), code))
        case let .bidirectionalControl(scalar, offset):
            let code = Self.codePoint(scalar)
            return text(en: PageText.fill("the text direction character %@ at position %@ could disguise the name.", code, String(offset + 1)),
                        de: PageText.fill("Das Textrichtungszeichen %@ an Position %@ könnte den Namen verfälschen.", code, String(offset + 1)),
                        zh: PageText.fill("第 %@ 个字符是文字方向控制符 %@，可能使名称显示失真。", String(offset + 1), code))
        case let .reservedName(name):
            return text(en: PageText.fill("“%@” is reserved.", name), de: PageText.fill("„%@“ ist reserviert.", name),
                        zh: PageText.fill("“%@”是保留名称。", name))
        case let .onlyExtension(name):
            return text(en: PageText.fill("“%@” is only an extension; put a name before it.", name),
                        de: PageText.fill("„%@“ ist nur eine Dateiendung; davor muss ein Name stehen.", name),
                        zh: PageText.fill("“%@”只有扩展名，请在前面加上名称。", name))
        case let .tooLong(length):
            let limit = String(WOPIName.maximumUTF8Length)
            return text(en: PageText.fill("it is %@ bytes long; at most %@ are allowed.", String(length), limit),
                        de: PageText.fill("Er ist %@ Byte lang; erlaubt sind höchstens %@.", String(length), limit),
                        zh: PageText.fill("名称长 %@ 字节，最多允许 %@ 字节。", String(length), limit))
        }
    }

    /// `U+202E`: how the Unicode Standard writes a code point.
    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    private func text(en: String, de: String, zh: String) -> String {
        switch self {
        case .english: en
        case .german: de
        case .simplifiedChinese: zh
        }
    }
}
