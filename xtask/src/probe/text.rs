//! Text mechanics: tokens, token diffs, sites, and splitting a text at known literal gaps.

/// Splits printed text into tokens: runs of `[A-Za-z0-9_]`, and every other character alone; a decimal
/// float (`3.0000019073486328125`, `5.8774717541114375398e-39`, `1.2884e+10`) is one token, so that
/// changing its mantissa or exponent replaces the same token.
pub fn tokenize(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        if is_word(bytes[i]) {
            while i < bytes.len() && is_word(bytes[i]) {
                i += 1;
            }
            let digits = bytes[start..i].iter().all(u8::is_ascii_digit);
            if digits && i + 1 < bytes.len() && bytes[i] == b'.' && bytes[i + 1].is_ascii_digit() {
                i += 1;
                while i < bytes.len() && is_word(bytes[i]) {
                    i += 1;
                }
                if bytes[i - 1] == b'e' && i + 1 < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') && bytes[i + 1].is_ascii_digit() {
                    i += 1;
                    while i < bytes.len() && bytes[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
        } else {
            // One character (UTF-8 safe: step to the next char boundary).
            i += 1;
            while i < bytes.len() && !s.is_char_boundary(i) {
                i += 1;
            }
        }
        out.push(&s[start..i]);
    }
    out
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// A changed region of the base token sequence: tokens `start..end` (empty for an insertion at `start`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Site {
    pub start: usize,
    pub end: usize,
}

impl Site {
    /// Whether two sites must belong to the same field: overlapping spans, the same insertion point, or
    /// an insertion strictly inside a span.
    pub fn conflicts(&self, o: &Site) -> bool {
        let (a, b) = (self, o);
        match (a.start == a.end, b.start == b.end) {
            (true, true) => a.start == b.start,
            (true, false) => b.start < a.start && a.start < b.end,
            (false, true) => a.start < b.start && b.start < a.end,
            (false, false) => a.start < b.end && b.start < a.end,
        }
    }
}

/// The regions of `a` that differ from `b` (longest-common-subsequence alignment over tokens).
pub fn diff_sites(a: &[&str], b: &[&str]) -> Vec<Site> {
    let (n, m) = (a.len(), b.len());
    // Trim the common prefix and suffix first: most diffs touch one token.
    let mut p = 0;
    while p < n && p < m && a[p] == b[p] {
        p += 1;
    }
    let mut s = 0;
    while s < n - p && s < m - p && a[n - 1 - s] == b[m - 1 - s] {
        s += 1;
    }
    let a2 = &a[p..n - s];
    let b2 = &b[p..m - s];
    if a2.is_empty() && b2.is_empty() {
        return Vec::new();
    }
    let (n2, m2) = (a2.len(), b2.len());
    let mut dp = vec![0u16; (n2 + 1) * (m2 + 1)];
    let idx = |i: usize, j: usize| i * (m2 + 1) + j;
    for i in (0..n2).rev() {
        for j in (0..m2).rev() {
            dp[idx(i, j)] = if a2[i] == b2[j] {
                dp[idx(i + 1, j + 1)] + 1
            } else {
                dp[idx(i + 1, j)].max(dp[idx(i, j + 1)])
            };
        }
    }
    let mut sites = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut open: Option<usize> = None;
    while i < n2 || j < m2 {
        if i < n2 && j < m2 && a2[i] == b2[j] && dp[idx(i, j)] == dp[idx(i + 1, j + 1)] + 1 {
            if let Some(st) = open.take() {
                sites.push(Site { start: p + st, end: p + i });
            }
            i += 1;
            j += 1;
        } else {
            if open.is_none() {
                open = Some(i);
            }
            if j < m2 && (i >= n2 || dp[idx(i, j + 1)] >= dp[idx(i + 1, j)]) {
                j += 1;
            } else {
                i += 1;
            }
        }
    }
    if let Some(st) = open {
        sites.push(Site { start: p + st, end: p + n2 });
    }
    sites
}

/// Splits `text` into the pieces between literal `gaps` (`gaps.len() == holes + 1`): `text` must be
/// `gaps[0] h0 gaps[1] h1 ... gaps[k]`. Inner gaps are matched leftmost-first with backtracking.
pub fn split_at_gaps(text: &str, gaps: &[String]) -> Option<Vec<String>> {
    let (first, rest) = gaps.split_first()?;
    let body = text.strip_prefix(first.as_str())?;
    let Some((last, inner)) = rest.split_last() else {
        return if body.is_empty() { Some(Vec::new()) } else { None };
    };
    let body = body.strip_suffix(last.as_str())?;
    let mut holes = Vec::new();
    if fill(body, inner, &mut holes) {
        Some(holes)
    } else {
        None
    }
}

fn fill(body: &str, inner: &[String], holes: &mut Vec<String>) -> bool {
    let Some((g, more)) = inner.split_first() else {
        holes.push(body.to_owned());
        return true;
    };
    let mut from = 0;
    while let Some(pos) = body[from..].find(g.as_str()).map(|p| p + from) {
        holes.push(body[..pos].to_owned());
        if fill(&body[pos + g.len()..], more, holes) {
            return true;
        }
        holes.truncate(holes.len() - 1);
        from = pos + 1;
        while from < body.len() && !body.is_char_boundary(from) {
            from += 1;
        }
        if from > body.len() {
            break;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abs_is_two_insertions() {
        let a = tokenize("FADD R1, R2, R3 ;");
        let b = tokenize("FADD R1, |R2|, R3 ;");
        let s = diff_sites(&a, &b);
        assert_eq!(s, vec![Site { start: 5, end: 5 }, Site { start: 6, end: 6 }]);
    }

    #[test]
    fn floats_are_one_token() {
        assert_eq!(tokenize("R2, -5.87e-39, R0"), vec!["R2", ",", " ", "-", "5.87e-39", ",", " ", "R0"]);
        assert_eq!(tokenize("3.5 R5.H1 HMMA.16816.F32"), vec!["3.5", " ", "R5", ".", "H1", " ", "HMMA", ".", "16816", ".", "F32"]);
    }

    #[test]
    fn gaps_split() {
        let gaps = vec!["A ".to_owned(), ", ".to_owned(), " ;".to_owned()];
        assert_eq!(split_at_gaps("A x, y ;", &gaps), Some(vec!["x".to_owned(), "y".to_owned()]));
        assert_eq!(split_at_gaps("A x ;", &gaps), None);
    }
}
