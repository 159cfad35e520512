//! Session recording and resume. Every run that sends a prompt is recorded as JSONL in
//! `$AIRLOCK_HOME/sessions/<started-utc>-<id>.jsonl`: a [`Header`] line, then one line per
//! history message as it is appended, one per model response's token counts, and one per
//! compression. The file is append-only — a line is written whole (one `write`) as soon as
//! it exists, and never rewritten: a compression appends a `compressed` record that holds
//! the history it left (summary + kept tail) instead of editing what came before.
//!
//! Resuming reads the file backwards, from its end to the last `compressed` record (or to
//! the header), so the cost of a resume follows what the model will be sent, not the
//! file's whole length ([`replay`]). Listing reads each file's first lines and its last
//! line only ([`store`]).

mod clock;
mod forward;
mod record;
mod replay;
mod reverse;
mod store;

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

pub use crate::checkpoints::CallCheckpoint;
pub use clock::Stamp;
pub use forward::{Line, read_forward};
pub use record::{Header, PromptLine, RecordedCall, RewoundLine};
pub use replay::{Resumed, Tokens, replay};
pub use store::{Summary, find, list};

use airlock_model::{Message, Usage, UsageKind};
use record::RecordRef;

/// A problem with the session files.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot create the sessions folder {path}: {reason}")]
    Folder { path: PathBuf, reason: String },
    #[error("cannot read {path}: {reason}")]
    Read { path: PathBuf, reason: String },
    #[error("cannot write the session file {path}: {reason}")]
    Write { path: PathBuf, reason: String },
    #[error("{path} is not an airlock session file: {reason}")]
    NotASession { path: PathBuf, reason: String },
    #[error("no session `{id}` in {}; `airlock sessions list` shows the recorded ones", dir.display())]
    UnknownId { id: String, dir: PathBuf },
    #[error("`{id}` matches several sessions ({matches}); give more of the id")]
    Ambiguous { id: String, matches: String },
    #[error("no recorded session for the workspace {workspace}; `airlock sessions list` shows the recorded ones")]
    NoneForWorkspace { workspace: String },
    #[error("session {id} is in use by a running airlock: rewind it there (/rewind), or end it first")]
    Busy { id: String },
}

/// `$AIRLOCK_HOME/sessions`.
pub fn dir(airlock_home: &Path) -> PathBuf {
    airlock_home.join("sessions")
}

/// Appends a session's records to its file. Every record is one line written with one
/// `write` call on a file opened for appending, so a crash leaves at most one partial
/// last line, which [`replay`] skips.
#[derive(Debug)]
pub struct Recorder {
    file: File,
    path: PathBuf,
    id: String,
    /// Model responses over the whole session, resumed runs included.
    turn: u64,
    /// Tokens over the whole session, resumed runs included.
    input_tokens: u64,
    output_tokens: u64,
}

impl Recorder {
    /// Starts a new session file in `dir` with `header` as its first line.
    /// The folder and the file are private to the user: they hold the conversation and
    /// everything the tools returned.
    pub fn create(dir: &Path, header: &Header) -> Result<Self, SessionError> {
        let mut folder = std::fs::DirBuilder::new();
        folder.recursive(true);
        let mut options = OpenOptions::new();
        options.create_new(true).append(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
            folder.mode(0o700);
            options.mode(0o600);
        }
        folder.create(dir).map_err(|e| SessionError::Folder { path: dir.to_path_buf(), reason: e.to_string() })?;
        let path = dir.join(store::file_name(&header.started, &header.id));
        let file =
            options.open(&path).map_err(|e| SessionError::Write { path: path.clone(), reason: e.to_string() })?;
        in_use(&file);
        let mut recorder = Self { file, path, id: header.id.clone(), turn: 0, input_tokens: 0, output_tokens: 0 };
        recorder.write(&RecordRef::Session(header))?;
        Ok(recorder)
    }

    /// Continues the session file at `path`, whose replay counted `turn` model responses
    /// and `tokens`. A partial last line (a crash mid-write) is ended first, so the next
    /// record starts a line of its own.
    pub fn append(path: &Path, id: &str, turn: u64, tokens: Tokens) -> Result<Self, SessionError> {
        let write_error = |e: std::io::Error| SessionError::Write { path: path.to_path_buf(), reason: e.to_string() };
        let mut file = OpenOptions::new().read(true).append(true).open(path).map_err(write_error)?;
        in_use(&file);
        let length = file.metadata().map_err(write_error)?.len();
        if length > 0 {
            let mut last = [0u8; 1];
            file.seek(SeekFrom::Start(length - 1)).and_then(|_| file.read_exact(&mut last)).map_err(write_error)?;
            if last[0] != b'\n' {
                file.write_all(b"\n").map_err(write_error)?;
            }
        }
        Ok(Self {
            file,
            path: path.to_path_buf(),
            id: id.to_owned(),
            turn,
            input_tokens: tokens.input,
            output_tokens: tokens.output,
        })
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder for this session's tool outputs that were too long to send whole:
    /// `<session file without .jsonl>.outputs`, beside the session file.
    pub fn outputs_dir(&self) -> PathBuf {
        self.path.with_extension("outputs")
    }

    /// Counts a model response; later records carry the new count.
    pub fn turn_started(&mut self) {
        self.turn += 1;
    }

    /// Records a message appended to the history.
    pub fn message(&mut self, message: &Message) -> Result<(), SessionError> {
        self.write(&RecordRef::Message { turn: self.turn, message })
    }

    /// Records the token counts of one model response.
    pub fn usage(&mut self, kind: UsageKind, usage: Usage) -> Result<(), SessionError> {
        self.input_tokens += usage.input_tokens;
        self.output_tokens += usage.output_tokens;
        self.write(&RecordRef::Usage {
            turn: self.turn,
            kind,
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            session_input_tokens: self.input_tokens,
            session_output_tokens: self.output_tokens,
        })
    }

    /// Records what the cards of one batch showed.
    pub fn calls(&mut self, calls: &[RecordedCall]) -> Result<(), SessionError> {
        if calls.is_empty() {
            return Ok(());
        }
        self.write(&RecordRef::Calls { turn: self.turn, calls })
    }

    /// Records that the first `replaced` messages were compressed: `history` is the whole
    /// history from here on (the summary and the kept messages).
    pub fn compressed(&mut self, replaced: usize, history: &[Message]) -> Result<(), SessionError> {
        self.write(&RecordRef::Compressed { turn: self.turn, replaced, history })
    }

    /// Records the model's plan, whole.
    pub fn todos(&mut self, todos: &serde_json::Value) -> Result<(), SessionError> {
        self.write(&RecordRef::Todos { turn: self.turn, todos })
    }

    /// Records the audit trail's head, so a trail whose tail was removed no longer matches.
    /// `head` is the sha-256 of the trail's record `seq`.
    pub fn audit_head(&mut self, seq: u64, head: &str) -> Result<(), SessionError> {
        self.write(&RecordRef::Audit { seq, head })
    }

    /// Records that a user prompt starts.
    pub fn prompt(&mut self, prompt: &PromptLine) -> Result<(), SessionError> {
        self.write(&RecordRef::Prompt { turn: self.turn, prompt })
    }

    /// Records a rewind ([`RewoundLine`]).
    pub fn rewound(&mut self, rewound: &RewoundLine) -> Result<(), SessionError> {
        self.write(&RecordRef::Rewound { turn: self.turn, rewound })
    }

    /// Records that a later run continued the session.
    pub fn resumed(&mut self, at: &Stamp, provider: &str, model: &str, workspace: &str) -> Result<(), SessionError> {
        self.write(&RecordRef::Resumed { turn: self.turn, at: at.iso(), provider, model, workspace })
    }

    fn write(&mut self, record: &RecordRef<'_>) -> Result<(), SessionError> {
        let mut line = serde_json::to_vec(record)
            .map_err(|e| SessionError::Write { path: self.path.clone(), reason: e.to_string() })?;
        line.push(b'\n');
        self.file.write_all(&line).map_err(|e| SessionError::Write { path: self.path.clone(), reason: e.to_string() })
    }
}

/// Marks a session file as in use while its recorder lives: a shared lock, which only
/// [`exclusive`] (`airlock rewind` on a recorded session) waits for. Several recorders of one
/// file may coexist as before; a lock that cannot be taken is no reason to stop recording.
fn in_use(file: &File) {
    let _ = file.try_lock_shared();
}

/// Locks the session file at `path` (id `id`) against every running recorder of it, for a
/// change made from outside the session (`airlock rewind`): refused while one runs. The
/// lock lasts as long as the file returned is open.
pub fn exclusive(path: &Path, id: &str) -> Result<File, SessionError> {
    let file = File::open(path).map_err(|e| SessionError::Read { path: path.to_path_buf(), reason: e.to_string() })?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(SessionError::Busy { id: id.to_owned() }),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(SessionError::Read { path: path.to_path_buf(), reason: format!("cannot lock it: {e}") })
        }
    }
}

/// The session a run records to, and the history it continues.
#[derive(Debug)]
pub struct Opened {
    pub recorder: Recorder,
    /// Empty for a new session.
    pub history: Vec<Message>,
    /// Whether an earlier session is continued.
    pub resumed: bool,
    /// Things the user should know (a different workspace, skipped lines).
    pub warnings: Vec<String>,
    /// What was resumed, for a notice.
    pub notice: Option<String>,
    /// The latest plan recorded in a resumed session, as written.
    pub todos: Option<serde_json::Value>,
    /// What the cards of a resumed session's calls showed, in the order they were recorded.
    pub calls: Vec<RecordedCall>,
    /// A resumed session's token counts so far.
    pub tokens: Tokens,
    /// The user prompts a resumed session's conversation holds (0 for a new one).
    pub prompts: u32,
}

/// What identifies the run being recorded.
#[derive(Debug, Clone, Copy)]
pub struct RunInfo<'a> {
    pub workspace: &'a str,
    pub provider: &'a str,
    pub model: &'a str,
}

/// Starts a new session in `$AIRLOCK_HOME/sessions`, or continues the one `resume` names
/// (`latest`, an id, or the start of one).
pub fn open(airlock_home: &Path, resume: Option<&str>, run: RunInfo<'_>) -> Result<Opened, SessionError> {
    let dir = dir(airlock_home);
    let Some(which) = resume else {
        let header = Header::new(
            new_id(),
            Stamp::now().iso(),
            run.workspace.to_owned(),
            run.provider.to_owned(),
            run.model.to_owned(),
        );
        let recorder = Recorder::create(&dir, &header)?;
        return Ok(Opened {
            recorder,
            history: Vec::new(),
            resumed: false,
            warnings: Vec::new(),
            notice: None,
            todos: None,
            calls: Vec::new(),
            tokens: Tokens::default(),
            prompts: 0,
        });
    };
    let path = find(&dir, which, run.workspace)?;
    let started = std::time::Instant::now();
    let resumed = replay(&path)?;
    tracing::info!(
        path = %path.display(),
        elapsed_ms = started.elapsed().as_secs_f64() * 1000.0,
        lines_read = resumed.lines_read,
        messages = resumed.history.len(),
        "replayed the session"
    );
    let mut warnings = Vec::new();
    if resumed.header.workspace != run.workspace {
        warnings.push(format!(
            "session {} was recorded in {}; continuing it in {}",
            resumed.header.id, resumed.header.workspace, run.workspace
        ));
    }
    if resumed.skipped > 0 {
        warnings.push(format!("skipped {} unreadable lines of {}", resumed.skipped, path.display()));
    }
    let mut recorder = Recorder::append(&path, &resumed.header.id, resumed.turn, resumed.tokens)?;
    recorder.resumed(&Stamp::now(), run.provider, run.model, run.workspace)?;
    let notice = format!(
        "resumed session {} ({} messages, {} turns so far)",
        resumed.header.id,
        resumed.history.len(),
        resumed.turn
    );
    Ok(Opened {
        recorder,
        history: resumed.history,
        resumed: true,
        warnings,
        notice: Some(notice),
        todos: resumed.todos,
        calls: resumed.calls,
        tokens: resumed.tokens,
        prompts: resumed.prompts,
    })
}

/// A new session id: 16 random hex digits.
pub fn new_id() -> String {
    use rand::RngExt;
    let bytes: [u8; 8] = rand::rng().random();
    hex::encode(bytes)
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
