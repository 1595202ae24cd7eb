import Foundation

/// Byte counts that an operator configured, shown exactly as they were written.
///
/// `wopi serve --max-file-size` reads `K`, `M` and `G` as powers of 1024, so `512M` is
/// 536,870,912 bytes. A decimal formatter would show that as "536.9 MB"; here it stays
/// "512 MiB", in the IEC unit (IEC 80000-13) that says which kind of megabyte it is.
enum ByteSizeText {
    /// `bytes` in the largest binary unit that divides it exactly ("512 MiB", "1 GiB", "3 KiB"),
    /// else in bytes ("1000 B"), so the figure is never rounded.
    static func exact(_ bytes: Int64) -> String {
        for (unit, size) in [("GiB", Int64(1) << 30), ("MiB", Int64(1) << 20), ("KiB", Int64(1) << 10)]
        where bytes != 0 && bytes % size == 0 {
            return "\(bytes / size) \(unit)"
        }
        return "\(bytes) B"
    }
}
