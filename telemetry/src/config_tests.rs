//! Unit tests of `config.rs`.

use super::*;

fn with(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}

fn on() -> Settings {
    Settings { enabled: Some(true), ..Settings::default() }
}

#[test]
fn off_by_default_and_on_when_the_file_or_the_variable_says_so() {
    assert_eq!(resolve(&Settings::default(), &with(&[])), Ok(None));
    let config = resolve(&on(), &with(&[])).unwrap().unwrap();
    assert_eq!(config, Config { endpoint: None, timeout: Duration::from_secs(10), log_prompts: false });
    assert!(resolve(&Settings::default(), &with(&[("AIRLOCK_TELEMETRY", "1")])).unwrap().is_some());
    assert_eq!(resolve(&on(), &with(&[("AIRLOCK_TELEMETRY", "0")])), Ok(None));
}

#[test]
fn otel_sdk_disabled_wins_over_everything() {
    let vars = with(&[("OTEL_SDK_DISABLED", "true"), ("AIRLOCK_TELEMETRY", "1")]);
    assert_eq!(resolve(&on(), &vars), Ok(None));
}

#[test]
fn a_base_endpoint_gets_each_signal_path_and_the_timeout_comes_from_the_variable() {
    let settings = Settings { endpoint: Some("http://127.0.0.1:4318/".into()), log_prompts: Some(true), ..on() };
    let config = resolve(&settings, &with(&[("OTEL_EXPORTER_OTLP_TIMEOUT", "1500")])).unwrap().unwrap();
    assert_eq!(config.signal_endpoint("traces").as_deref(), Some("http://127.0.0.1:4318/v1/traces"));
    assert_eq!(config.timeout, Duration::from_millis(1500));
    assert!(config.log_prompts);
}

#[test]
fn grpc_and_odd_endpoints_are_refused_with_a_reason() {
    let grpc = resolve(&on(), &with(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]));
    assert_eq!(grpc, Err(ConfigError::Protocol("grpc".into(), "OTEL_EXPORTER_OTLP_PROTOCOL")));
    let json = Settings { protocol: Some("http/json".into()), ..on() };
    assert!(resolve(&json, &with(&[])).unwrap_err().to_string().contains("http/protobuf"));
    let endpoint = Settings { endpoint: Some("localhost:4318".into()), ..on() };
    assert_eq!(resolve(&endpoint, &with(&[])), Err(ConfigError::Endpoint("localhost:4318".into())));
}
