//! `airlock plugins publish FILE oci://HOST/REPO:TAG`: pushes a checked component to an OCI
//! registry in the CNCF WebAssembly artifact layout (the one `wkg`, Wassette and Spin use).
//!
//! The component is checked first as `plugins check` does (it loads and describes itself);
//! the bytes pushed are the bytes checked (their sha-256 is compared). What is printed is the
//! line an author pastes: the reference pinned to the manifest's digest.
//!
//! With `--key KEY.pem` the pushed manifest is then signed as `cosign sign --key` does: a
//! simple-signing payload naming the manifest's digest, its signature stored under the
//! `sha256-<manifest>.sig` tag, where `plugins install` finds it. The key (and
//! `COSIGN_PASSWORD` for cosign's encrypted keys) is read before anything is pushed, so a bad
//! key or password publishes nothing.

use std::io::Write;
use std::path::PathBuf;

use super::Context;
use crate::commands::CommandError;
use airlock_engine::registry::{MAX_PLUGIN_BYTES, Registry};
use airlock_engine::sanitize::line;
use airlock_files as files;
use airlock_oci::Reference;

/// `airlock plugins publish`.
#[derive(Debug, clap::Args)]
pub struct PublishArgs {
    /// The component file (`.wasm`).
    pub file: PathBuf,
    /// Where to push it: `oci://HOST/REPO:TAG`.
    pub reference: String,
    /// Sign the pushed manifest with this private key (PEM: `cosign generate-key-pair`'s
    /// `cosign.key`, whose password is read from `COSIGN_PASSWORD`, or a PKCS#8 P-256 key).
    #[arg(long, value_name = "KEY.pem")]
    pub key: Option<PathBuf>,
}

/// Largest private key file read.
const MAX_KEY_BYTES: u64 = 1 << 16;

/// A private key's PEM, its password and its fingerprint, checked.
struct SigningKey {
    pem: String,
    password: Vec<u8>,
    fingerprint: String,
}

fn signing_key(path: &std::path::Path) -> Result<SigningKey, CommandError> {
    let shown = path.display();
    let bytes = files::read_user_file(path, MAX_KEY_BYTES)
        .map_err(|e| CommandError::Unloadable(format!("{shown}: cannot read: {e}; nothing was published")))?;
    let pem = String::from_utf8(bytes)
        .map_err(|_| CommandError::Unloadable(format!("{shown}: not a PEM key; nothing was published")))?;
    let password = std::env::var("COSIGN_PASSWORD").unwrap_or_default().into_bytes();
    let fingerprint = airlock_signing::private_key_fingerprint(&pem, &password).map_err(|e| {
        CommandError::Unloadable(format!(
            "{shown}: {e} (COSIGN_PASSWORD holds an encrypted key's password); nothing was published"
        ))
    })?;
    Ok(SigningKey { pem, password, fingerprint })
}

pub(super) async fn run(context: &Context<'_>, args: &PublishArgs, out: &mut impl Write) -> Result<(), CommandError> {
    let reference = Reference::parse(&args.reference).map_err(|e| CommandError::Usage(e.to_string()))?;
    if reference.tag().is_none() || reference.digest().is_some() {
        return Err(CommandError::Usage(format!(
            "{reference}: publish takes a tag and no digest (oci://HOST/REPO:TAG); the digest is what the registry answers"
        )));
    }
    let shown = args.file.display().to_string();
    let bytes = files::read_user_file(&args.file, MAX_PLUGIN_BYTES)
        .map_err(|e| CommandError::Unloadable(format!("{shown}: cannot read: {e}")))?;
    let digest = files::content_hash(&bytes);
    let plugin = Registry::inspect(context.runtime, &args.file)
        .await
        .map_err(|p| CommandError::Unloadable(format!("{}: {}; nothing was published", p.path, p.reason)))?;
    if plugin.source.content_hash != digest {
        return Err(CommandError::Unloadable(format!(
            "{shown}: the file changed while it was checked; nothing was published"
        )));
    }
    let key = args.key.as_deref().map(signing_key).transpose()?;
    let client = airlock_oci::Client::new(&reference).map_err(|e| CommandError::Unloadable(e.to_string()))?;
    let published = client
        .publish(&reference, &bytes)
        .await
        .map_err(|e| CommandError::Unloadable(format!("{e}; the push did not complete")))?;
    writeln!(
        out,
        "published {} {} to {}",
        line(&plugin.info.name),
        line(&plugin.info.version),
        line(&reference.to_string())
    )?;
    writeln!(out, "  manifest {}", published.manifest_digest)?;
    writeln!(out, "  sha-256  {digest} (the component)")?;
    if let Some(key) = key {
        let manifest = &published.manifest_digest;
        let payload = airlock_oci::simple_signing_payload(&reference, manifest);
        let signature = airlock_signing::sign_payload(&payload, &key.pem, &key.password)
            .map_err(|e| CommandError::Unloadable(format!("{e}; {manifest} was pushed unsigned")))?;
        client
            .push_cosign_signature(&reference, manifest, &payload, &signature)
            .await
            .map_err(|e| CommandError::Unloadable(format!("{e}; {manifest} was pushed, its signature was not")))?;
        writeln!(out, "  signed   by key {} (tag {})", key.fingerprint, airlock_oci::signature_tag(manifest))?;
    }
    writeln!(out, "install it with: airlock plugins install {}", line(&published.reference.to_string()))?;
    Ok(())
}
