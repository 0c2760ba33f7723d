//! What a deploy hook firing writes to the log, read through a subscriber as the server
//! installs it (`info` and above): one line per firing, `deploy hook fired` at info level or
//! `deploy hook failed` at warning level, with the project, the trigger and the host.
//!
//! One test in its own binary, so the process-wide subscriber sees nothing else.

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use blogread_core::hook::AddressPolicy;
use blogread_core::store::MemoryStore;
use blogread_core::testing::Fixture;
use blogread_core::testing::receiver::{
    Answer, Receiver, loopback_resolver, test_notifier, test_pki,
};

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl io::Write for Captured {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(data);
        Ok(data.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn lines(&self) -> Vec<String> {
        String::from_utf8_lossy(&self.0.lock().unwrap())
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_firing_is_logged_once() {
    let log = Captured::default();
    let writer = log.clone();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new("info"))
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();

    let pki = test_pki();
    let failing = Receiver::start(&pki, Answer::Status(500)).await;
    let mut f = Fixture::new(Arc::new(MemoryStore::new()), None).await;
    f.service = f
        .service
        .clone()
        .with_notifier(Arc::new(test_notifier(
            &pki,
            loopback_resolver(),
            Duration::from_secs(10),
        )))
        .with_hook_resolver(loopback_resolver(), AddressPolicy::GlobalAndLoopback);
    f.service
        .save_deploy_hook(&f.admin, f.project, failing.url_string("/build_hooks/x"))
        .await
        .unwrap();
    f.published("one", "One", "<p>1</p>").await;
    assert!(f.service.wait_for_firings(Duration::from_secs(20)).await);

    let hook_lines = |lines: Vec<String>| -> Vec<String> {
        lines
            .into_iter()
            .filter(|l| l.contains("deploy hook"))
            .collect()
    };
    let lines = hook_lines(log.lines());
    assert_eq!(lines.len(), 1, "one line for the failed firing: {lines:#?}");
    assert!(lines[0].contains("WARN"), "{}", lines[0]);
    assert!(lines[0].contains("deploy hook failed"), "{}", lines[0]);
    assert!(
        lines[0].contains(&f.project.to_string()),
        "names the project"
    );
    assert!(lines[0].contains("trigger=published"), "{}", lines[0]);

    let succeeding = Receiver::start(&pki, Answer::Status(204)).await;
    f.service
        .save_deploy_hook(&f.admin, f.project, succeeding.url_string("/build_hooks/y"))
        .await
        .unwrap();
    f.published("two", "Two", "<p>2</p>").await;
    assert!(f.service.wait_for_firings(Duration::from_secs(20)).await);
    let lines = hook_lines(log.lines());
    assert_eq!(lines.len(), 2, "one more for the delivered one: {lines:#?}");
    assert!(lines[1].contains(" INFO "), "{}", lines[1]);
    assert!(lines[1].contains("deploy hook fired"), "{}", lines[1]);
}
