//! The `{{tool}}` tool: counts the lines, words and characters of a text the model gives,
//! and names its most frequent words. Replace it with your own; `cargo test` runs the tests
//! at the end natively, `./build.sh` builds the component.

use std::collections::BTreeMap;

use airlock_plugin_sdk::prelude::*;

// Reaching the network or running a program: `airlock_plugin_sdk::http::get(url)?` (request the
// host with `Capabilities::none().network("https://api.example.com")`) and
// `airlock_plugin_sdk::process::Spawn::argv(["git", "--version"]).output()?` (request
// `.process("git")`); a refusal becomes permission-denied for the model. Both are shown in the
// kit's examples/http_and_process (sdk/README.md, "Running programs" and "HTTP").

#[derive(Deserialize, JsonSchema)]
pub struct Args {
    /// The text to count.
    pub text: String,
    /// How many of the most frequent words to list (0 to 50, default 5).
    #[serde(default = "default_top")]
    pub top: u32,
}

fn default_top() -> u32 {
    5
}

/// The counts, as the model is told them.
pub fn count(args: &Args) -> Result<serde_json::Value, ToolError> {
    if args.top > 50 {
        return Err(ToolError::InvalidParams(format!("top is {}; give 0 to 50", args.top)));
    }
    let mut frequency: BTreeMap<String, u64> = BTreeMap::new();
    for word in args.text.split_whitespace() {
        let word: String = word.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
        if !word.is_empty() {
            *frequency.entry(word).or_default() += 1;
        }
    }
    let mut ranked: Vec<(String, u64)> = frequency.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    ranked.truncate(args.top as usize);
    Ok(json!({
        "lines": args.text.lines().count(),
        "words": args.text.split_whitespace().count(),
        "characters": args.text.chars().count(),
        "top_words": ranked.into_iter().map(|(word, n)| json!({"word": word, "count": n})).collect::<Vec<_>>(),
    }))
}

pub struct Counter;
impl Tool for Counter {
    type Args = Args;
    const NAME: &'static str = "{{tool}}";
    const DISPLAY_NAME: &'static str = "{{name}}";
    const DESCRIPTION: &'static str =
        "Counts the lines, words and characters of a text and lists its most frequent words.";
    const KIND: Kind = Kind::Think;
    fn describe_call(args: &Args) -> String {
        format!("Count a text of {} characters", args.text.chars().count())
    }
    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::json(&count(&args)?))
    }
}
export_tools!(Counter);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_ranks_words() {
        let args = Args { text: "The cat.\nthe dog and THE bird".into(), top: 2 };
        let counted = count(&args).unwrap_or_default();
        assert_eq!(counted["lines"], 2);
        assert_eq!(counted["words"], 7);
        assert_eq!(counted["top_words"][0], json!({"word": "the", "count": 3}));
        assert_eq!(counted["top_words"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn refuses_a_top_out_of_range() {
        let args = Args { text: "x".into(), top: 51 };
        assert!(matches!(count(&args), Err(ToolError::InvalidParams(message)) if message.contains("51")));
    }
}
