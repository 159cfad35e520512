//! Rewind: a session's timeline (its prompts and the checkpoints of their calls, read from
//! the session file), the plan of a rewind (the files to restore, those changed outside
//! airlock, what was left out, the messages dropped), and carrying it out.
//!
//! Skeleton: the rewind stream of issue 29 builds it.
