//! Back-to-back repetition at the end of a byte stream: the stretch of the stream that ends
//! at its last byte and is one unit copied again and again with nothing between, for every
//! unit length that has one.
//!
//! Each byte costs a fixed amount of work, whatever the stream's length. Units of up to
//! [`SMALL_UNITS`] bytes are all followed, one counter each. Longer units, up to
//! [`MAX_UNIT`] bytes, are found through the last [`WINDOW`] bytes: a window seen before at
//! distance `d` proposes `d` as a unit, and the proposal lives as long as every new byte
//! equals the byte `d` before it. A fixed-size table remembers where each window was seen
//! last; a window it lost to a collision is found again one byte later.
//!
//! Of the repetitions that end at the last byte, the longest is the one judged, told by its
//! shortest unit. The stream also follows Markdown's blocks line by line (fenced code, table rows), so a
//! repetition knows whether it lies wholly inside one of them.

/// Unit lengths followed one counter each.
pub(super) const SMALL_UNITS: usize = 16;
/// The longest unit looked for, in bytes.
pub(super) const MAX_UNIT: usize = 4096;
/// The bytes hashed to propose a longer unit.
const WINDOW: usize = 16;
/// The size of the table of windows, as a power of two: with four times [`MAX_UNIT`]
/// slots, a window a unit back is still there about three times in four.
const TABLE_BITS: u32 = 14;
/// Longer units followed at once. Another one waits until one of them breaks: in a real
/// repetition its window comes back one byte later, at the same distance.
const MAX_CANDIDATES: usize = 8;
/// The rolling hash's base (odd, so every power of it is too).
const BASE: u64 = 0x0000_0100_0000_01b3;
/// `BASE` to the power `WINDOW`: what the byte leaving the window weighs.
const BASE_TO_WINDOW: u64 = {
    let mut power = 1u64;
    let mut n = 0;
    while n < WINDOW {
        power = power.wrapping_mul(BASE);
        n += 1;
    }
    power
};

/// A repetition ending at the stream's last byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Tail {
    /// The repeated unit's length, in bytes.
    pub unit: usize,
    /// The bytes the repetition covers, its first copy included.
    pub span: usize,
    /// It lies inside one fenced code block or one run of table rows, all but its first copy
    /// at least.
    pub structured: bool,
}

impl Tail {
    /// Whole copies of the unit in a row.
    pub fn copies(&self) -> usize {
        self.span / self.unit
    }
}

/// A longer unit being followed.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    unit: usize,
    /// Bytes in a row, ending at the last one, equal to the byte `unit` before them.
    run: usize,
}

/// One stream of bytes and the repetitions at its end.
#[derive(Debug)]
pub(super) struct Periodicity {
    bytes: Vec<u8>,
    /// The last [`SMALL_UNITS`] bytes, the latest in the low byte.
    recent: u128,
    /// `small[d - 1]`: bytes in a row, ending at the last one, equal to the byte `d` before.
    small: [u32; SMALL_UNITS],
    large: Vec<Candidate>,
    /// The longest span of all the repetitions ending at the last byte.
    longest_span: usize,
    /// The rolling hash of the last [`WINDOW`] bytes.
    hash: u64,
    /// By window hash: where the latest window with that hash ended (0: none yet).
    table: Box<[u32]>,
    blocks: Blocks,
}

impl Default for Periodicity {
    fn default() -> Self {
        Self {
            bytes: Vec::new(),
            recent: 0,
            small: [0; SMALL_UNITS],
            large: Vec::with_capacity(MAX_CANDIDATES),
            longest_span: 0,
            hash: 0,
            table: vec![0; 1 << TABLE_BITS].into_boxed_slice(),
            blocks: Blocks::default(),
        }
    }
}

impl Periodicity {
    /// The bytes so far.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Adds the next byte.
    pub fn push(&mut self, byte: u8) {
        let at = self.bytes.len();
        self.bytes.push(byte);
        // Lane `d - 1` holds the byte `d` back; lanes before the stream's start never count.
        // Branch-free, so the sixteen lanes are compared at once.
        let back = self.recent.to_le_bytes();
        let lanes = at.min(SMALL_UNITS);
        let mut longest_small = 0u32;
        for (lane, run) in self.small[..lanes].iter_mut().enumerate() {
            let same = u32::from(back[lane] == byte);
            *run = (*run + 1) * same;
            longest_small = longest_small.max((*run + lane as u32 + 1) * same);
        }
        let mut longest = longest_small as usize;
        self.recent = (self.recent << 8) | u128::from(byte);
        let bytes = &self.bytes;
        self.large.retain_mut(|candidate| {
            let same = bytes[at - candidate.unit] == byte;
            if same {
                candidate.run += 1;
                longest = longest.max(candidate.run + candidate.unit);
            }
            same
        });
        self.hash = self.hash.wrapping_mul(BASE).wrapping_add(u64::from(byte) + 1);
        if at >= WINDOW {
            self.hash = self.hash.wrapping_sub((u64::from(bytes[at - WINDOW]) + 1).wrapping_mul(BASE_TO_WINDOW));
        }
        if at + 1 >= WINDOW {
            self.propose(at + 1);
        }
        self.longest_span = longest;
        self.blocks.push(byte, at);
    }

    /// Looks the window ending at `end` up: seen before at a distance that is a longer
    /// unit not yet followed, that unit is followed from now on.
    fn propose(&mut self, end: usize) {
        let slot = (self.hash.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - TABLE_BITS)) as usize;
        // Past 4 GiB the table keeps nothing new: no answer is that long.
        let Ok(end_u32) = u32::try_from(end) else { return };
        let before = std::mem::replace(&mut self.table[slot], end_u32) as usize;
        if before == 0 {
            return;
        }
        let unit = end - before;
        if unit <= SMALL_UNITS || unit > MAX_UNIT || self.large.iter().any(|c| c.unit == unit) {
            return;
        }
        // The same hash is not yet the same bytes.
        if self.bytes[before - WINDOW..before] != self.bytes[end - WINDOW..end] {
            return;
        }
        if self.large.len() < MAX_CANDIDATES {
            self.large.push(Candidate { unit, run: WINDOW });
        }
    }

    /// The longest repetition ending at the last byte, if it spans at least `min_span`
    /// bytes, told by its shortest unit: a stretch with period `d` also has periods `2d`,
    /// `3d` and so on over the same span, and a run of dashes is a run of one dash, not of
    /// eight.
    pub fn longest(&self, min_span: usize) -> Option<Tail> {
        if self.longest_span < min_span.max(1) {
            return None;
        }
        let small = self.small.iter().enumerate().map(|(lane, &run)| (lane + 1, run as usize));
        let large = self.large.iter().map(|c| (c.unit, c.run));
        let (unit, span) = small
            .chain(large)
            .filter(|&(_, run)| run > 0)
            .map(|(unit, run)| (unit, run + unit))
            .min_by_key(|&(unit, span)| (std::cmp::Reverse(span), unit))?;
        // The byte before a block (a newline) often starts the first copy already.
        let second_copy = (self.bytes.len() + unit).saturating_sub(span);
        Some(Tail { unit, span, structured: self.blocks.structured_since(second_copy) })
    }
}

/// Where the stream stands in Markdown's blocks, followed line by line.
#[derive(Debug, Default)]
struct Blocks {
    /// Where the current line starts.
    line_start: usize,
    /// The current line's first non-blank bytes, up to three.
    lead: [u8; 3],
    lead_len: usize,
    /// Whether the current line is known to be a table row or not yet.
    row_known: bool,
    /// Where the fenced code block the stream is in starts (after its opening fence line).
    code_since: Option<usize>,
    /// Where the run of table rows the stream is in starts: lines that start with `|`, or
    /// with a box-drawing character (U+2500 to U+257F, `E2 94 xx` or `E2 95 xx` in UTF-8).
    table_since: Option<usize>,
}

impl Blocks {
    fn push(&mut self, byte: u8, at: usize) {
        if byte == b'\n' {
            if self.lead_len == 3 && (self.lead == *b"```" || self.lead == *b"~~~") {
                self.code_since = match self.code_since {
                    Some(_) => None,
                    None => Some(at + 1),
                };
            }
            if !self.row_known {
                // A blank line ends a table.
                self.table_since = None;
            }
            self.line_start = at + 1;
            self.lead_len = 0;
            self.row_known = false;
            return;
        }
        if self.lead_len == 0 && (byte == b' ' || byte == b'\t') {
            return;
        }
        if self.lead_len < self.lead.len() {
            self.lead[self.lead_len] = byte;
            self.lead_len += 1;
        }
        if !self.row_known {
            match self.lead[..self.lead_len] {
                [b'|'] | [0xe2, 0x94 | 0x95] => {
                    self.table_since.get_or_insert(self.line_start);
                    self.row_known = true;
                }
                [0xe2] => {}
                _ => {
                    self.table_since = None;
                    self.row_known = true;
                }
            }
        }
    }

    /// Whether everything from `start` on lies inside the current code block or table.
    fn structured_since(&self, start: usize) -> bool {
        self.code_since.is_some_and(|since| start >= since) || self.table_since.is_some_and(|since| start >= since)
    }
}
