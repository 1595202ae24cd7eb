extension String {
    /// The same string with one character replaced by a different one, so a test's forgery never equals the original.
    ///
    /// The default position sits well inside a base64url token: its last character may carry only padding bits,
    /// so changing that one can decode to the same bytes.
    public func tampered(atOffsetFromEnd offset: Int = 6) -> String {
        var characters = Array(self)
        let index = characters.count - offset
        characters[index] = characters[index] == "A" ? "B" : "A"
        return String(characters)
    }
}
