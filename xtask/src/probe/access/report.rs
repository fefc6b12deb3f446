//! What the access probe found, for the probe's summary and the table's header comment.

/// What the access probe found, for the probe's summary and the table's comment.
#[derive(Default)]
pub struct AccessReport {
    pub known: usize,
    pub unknown: Vec<(String, String)>,
    pub rules: usize,
    pub words: usize,
    /// Golden words listed, and how many the rules predict exactly.
    pub golden: usize,
    pub golden_agreed: usize,
    /// Classes whose golden listings the rules do not all predict (agreeing/listed).
    pub partial: Vec<(String, usize, usize)>,
    /// Per class, what the probe could not fit (registers no location explains, ...).
    pub notes: Vec<(String, String)>,
}

impl AccessReport {
    pub fn summary(&self) -> String {
        let mut s = format!(
            "accesses: {} classes known ({} rules), {} unknown; golden listings {}/{} predicted; {} words listed",
            self.known,
            self.rules,
            self.unknown.len(),
            self.golden_agreed,
            self.golden,
            self.words
        );
        for (c, why) in self.unknown.iter().take(60) {
            s.push_str(&format!("\n  unknown {c}: {why}"));
        }
        for (c, a, n) in &self.partial {
            s.push_str(&format!("\n  golden listings {c}: {a}/{n}"));
        }
        for (c, n) in self.notes.iter().take(200) {
            s.push_str(&format!("\n  note {c}: {n}"));
        }
        s
    }

    pub fn comment_lines(&self) -> Vec<String> {
        let mut v = vec![format!(
            "Register accesses (nvdisasm -plr): {} classes known, {} unknown; {} of {} golden listings predicted.",
            self.known,
            self.unknown.len(),
            self.golden_agreed,
            self.golden
        )];
        if !self.partial.is_empty() {
            let list: Vec<String> = self.partial.iter().map(|(c, a, n)| format!("{c} {a}/{n}")).collect();
            v.push(format!("Classes whose golden listings disagree (agreeing/listed): {}", list.join(" ")));
        }
        v
    }
}

