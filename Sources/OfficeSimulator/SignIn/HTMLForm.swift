import Foundation
import WOPIHTTPClient

/// The one form of a sign-in or consent page, read the way a person's browser reads it, so the
/// simulator can fill it in and submit it (HTML Living Standard §4.10, form submission §4.10.21).
///
/// The sign-in contract between host and simulator (SIGNIN-CONTRACT.md) promises exactly one
/// `<form method="post" action="…">` per page that needs input; the action may be relative.
///
/// ```swift
/// let form = try HTMLForm(html: page.text, pageURL: pageURL)
/// let request = try form.submission(filling: ["username": "alice", "password": "pw"])
/// ```
public struct HTMLForm: Sendable, Hashable {
    /// One form control, with its attribute values unescaped.
    public struct Control: Sendable, Hashable {
        /// The element and type: `hidden`, `text`, `password`, `email`, `checkbox`, `radio`,
        /// `submit`, `image`, `reset`, `button` (an `<input>`, or a `<button>`'s type), `textarea`, `select`.
        public let type: String
        /// The `name` attribute; a control without one is never submitted.
        public let name: String?
        /// The `value` attribute (the text of a `<textarea>`, the selected option of a `<select>`).
        public let value: String
        /// Whether a checkbox or radio button is checked.
        public let isChecked: Bool
        /// Whether the control is `disabled`, which keeps it out of the submission.
        public let isDisabled: Bool

        /// Creates a control.
        public init(type: String, name: String?, value: String, isChecked: Bool = false, isDisabled: Bool = false) {
            self.type = type
            self.name = name
            self.value = value
            self.isChecked = isChecked
            self.isDisabled = isDisabled
        }

        /// Whether pressing it submits the form.
        public var isSubmitButton: Bool { type == "submit" || type == "image" }

        /// Whether a person types into it.
        public var isTextEntry: Bool { ["text", "email", "tel", "search", "url", "password", "number"].contains(type) }
    }

    /// `method`, upper-cased: `GET` or `POST`.
    public let method: String
    /// The `action`, resolved against the page URL (the page itself when empty).
    public let action: URL
    /// Every control, in document order.
    public let controls: [Control]

    /// Reads the single form of `html`.
    ///
    /// - Parameters:
    ///   - html: The page.
    ///   - pageURL: Where the page came from, to resolve a relative `action`.
    /// - Throws: ``HTMLFormError`` when the page holds no form or several, the method is neither
    ///   GET nor POST, or the action is not a URL.
    public init(html: String, pageURL: URL) throws(HTMLFormError) {
        let tokens = HTMLTokenizer.tokens(of: html)
        let forms = tokens.indices.filter { if case .start("form", _) = tokens[$0] { true } else { false } }
        guard let start = forms.first else { throw .noForm }
        guard forms.count == 1 else { throw .severalForms(forms.count) }
        guard case .start(_, let formAttributes) = tokens[start] else { throw .noForm }
        func attribute(_ name: String, in attributes: [(name: String, value: String)]) -> String? {
            attributes.first { $0.name == name }?.value
        }
        let method = (attribute("method", in: formAttributes) ?? "get").uppercased()
        guard method == "GET" || method == "POST" else { throw .unsupportedMethod(method) }
        let actionText = (attribute("action", in: formAttributes) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard let action = actionText.isEmpty ? pageURL : URL(string: actionText, relativeTo: pageURL)?.absoluteURL,
              action.scheme == "http" || action.scheme == "https"
        else { throw .invalidAction(actionText) }

        var controls: [Control] = []
        var index = start + 1
        var openButton: (attributes: [(name: String, value: String)], text: String)?
        var openTextarea: (attributes: [(name: String, value: String)], text: String)?
        var openSelect: (attributes: [(name: String, value: String)], options: [(value: String, selected: Bool)])?
        var openOption: (attributes: [(name: String, value: String)], text: String)?
        func closeOption() {
            guard let option = openOption else { return }
            let value = attribute("value", in: option.attributes) ?? option.text.trimmingCharacters(in: .whitespacesAndNewlines)
            openSelect?.options.append((value, option.attributes.contains { $0.name == "selected" }))
            openOption = nil
        }
        scan: while index < tokens.count {
            switch tokens[index] {
            case .end("form"):
                break scan
            case .start("input", let attributes):
                let type = (attribute("type", in: attributes) ?? "text").lowercased()
                let defaultValue = type == "checkbox" || type == "radio" ? "on" : ""
                controls.append(Control(type: type, name: attribute("name", in: attributes),
                                        value: attribute("value", in: attributes) ?? defaultValue,
                                        isChecked: attributes.contains { $0.name == "checked" },
                                        isDisabled: attributes.contains { $0.name == "disabled" }))
            case .start("button", let attributes):
                openButton = (attributes, "")
            case .end("button"):
                if let button = openButton {
                    let type = (attribute("type", in: button.attributes) ?? "submit").lowercased()
                    controls.append(Control(type: type, name: attribute("name", in: button.attributes),
                                            value: attribute("value", in: button.attributes) ?? "",
                                            isDisabled: button.attributes.contains { $0.name == "disabled" }))
                }
                openButton = nil
            case .start("textarea", let attributes):
                openTextarea = (attributes, "")
            case .end("textarea"):
                if let area = openTextarea {
                    controls.append(Control(type: "textarea", name: attribute("name", in: area.attributes), value: area.text,
                                            isDisabled: area.attributes.contains { $0.name == "disabled" }))
                }
                openTextarea = nil
            case .start("select", let attributes):
                openSelect = (attributes, [])
            case .start("option", let attributes):
                closeOption()
                openOption = (attributes, "")
            case .end("option"):
                closeOption()
            case .end("select"):
                closeOption()
                if let select = openSelect {
                    let chosen = select.options.first { $0.selected } ?? select.options.first
                    controls.append(Control(type: "select", name: attribute("name", in: select.attributes), value: chosen?.value ?? "",
                                            isDisabled: select.attributes.contains { $0.name == "disabled" }))
                }
                openSelect = nil
            case .text(let text):
                openButton?.text += text
                openTextarea?.text += text
                openOption?.text += text
            default:
                break
            }
            index += 1
        }
        self.method = method
        self.action = action
        self.controls = controls
    }

    /// The buttons that submit the form, in document order.
    public var submitButtons: [Control] { controls.filter { $0.isSubmitButton && !$0.isDisabled } }

    /// The first password field, where a person types the password.
    public var passwordField: Control? { controls.first { $0.type == "password" && !$0.isDisabled } }

    /// Where a person types the user name: the control named `username` if there is one, else the
    /// first text or e-mail field.
    public var usernameField: Control? {
        let entries = controls.filter { ($0.type == "text" || $0.type == "email") && !$0.isDisabled && $0.name != nil }
        return entries.first { $0.name?.lowercased() == "username" } ?? entries.first
    }

    /// The submit button named `name` with value `value` (compared case-insensitively), if the form has it.
    public func button(named name: String, value: String) -> Control? {
        submitButtons.first { $0.name == name && $0.value.lowercased() == value.lowercased() }
    }

    /// The request a browser sends when a person fills in `values` and presses `button`.
    ///
    /// The form data set follows §4.10.21.4: enabled controls with a name, hidden fields
    /// unchanged, checkboxes and radio buttons only when checked, and only the pressed button.
    ///
    /// - Parameters:
    ///   - values: What the person types, by control name; only text-entry controls take them.
    ///   - button: The button pressed; `nil` presses the first submit button, as Enter does.
    /// - Throws: ``HTMLFormError/unknownField(_:)`` when `values` names a field the form lacks.
    public func submission(filling values: [String: String], pressing button: Control? = nil) throws(HTMLFormError) -> SimulatorRequest {
        for name in values.keys where !controls.contains(where: { $0.name == name && $0.isTextEntry }) {
            throw .unknownField(name)
        }
        let pressed = button ?? submitButtons.first
        var pairs: [(name: String, value: String)] = []
        for control in controls where !control.isDisabled {
            guard let name = control.name, !name.isEmpty else { continue }
            switch control.type {
            case "submit", "image":
                if control == pressed { pairs.append((name, control.value)) }
            case "reset", "button", "file":
                continue
            case "checkbox", "radio":
                if control.isChecked { pairs.append((name, control.value)) }
            default:
                pairs.append((name, control.isTextEntry ? values[name] ?? control.value : control.value))
            }
        }
        let encoded = FormEncoding.encode(pairs)
        if method == "GET" {
            var components = URLComponents(url: action, resolvingAgainstBaseURL: true)
            components?.percentEncodedQuery = encoded
            return SimulatorRequest(method: "GET", url: components?.url ?? action)
        }
        return SimulatorRequest(method: "POST", url: action,
                                headers: [SimulatorHeader("Content-Type", "application/x-www-form-urlencoded")],
                                body: Data(encoded.utf8))
    }

    /// The text of the first element whose `class` includes `error`, whitespace collapsed; how a
    /// sign-in page tells a person what went wrong (SIGNIN-CONTRACT.md). `nil` when there is none.
    public static func errorMessage(in html: String) -> String? {
        let tokens = HTMLTokenizer.tokens(of: html)
        for (index, token) in tokens.enumerated() {
            guard case .start(let name, let attributes) = token,
                  let classes = attributes.first(where: { $0.name == "class" })?.value,
                  classes.split(separator: " ").contains("error")
            else { continue }
            var depth = 0
            var text = ""
            for inner in tokens[(index + 1)...] {
                if case .start(name, _) = inner { depth += 1 }
                if case .end(name) = inner {
                    if depth == 0 { break }
                    depth -= 1
                }
                if case .text(let piece) = inner { text += piece + " " }
            }
            let collapsed = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            return collapsed.isEmpty ? nil : collapsed
        }
        return nil
    }
}

/// Why a page's form could not be read or filled in.
public enum HTMLFormError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The page holds no `<form>`.
    case noForm
    /// The page holds several forms, so which to fill is ambiguous.
    case severalForms(Int)
    /// The form's method is neither GET nor POST.
    case unsupportedMethod(String)
    /// The form's action is not an http(s) URL.
    case invalidAction(String)
    /// A value was given for a field the form does not have.
    case unknownField(String)

    /// One line naming the problem.
    public var description: String {
        switch self {
        case .noForm: "the page has no <form>"
        case .severalForms(let count): "the page has \(count) forms, expected exactly one"
        case .unsupportedMethod(let method): "the form's method '\(method)' is neither GET nor POST"
        case .invalidAction(let action): "the form's action '\(action.prefix(200))' is not an http(s) URL"
        case .unknownField(let name): "the form has no text field named '\(name)'"
        }
    }
}
