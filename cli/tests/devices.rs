//! `sassport devices` against the loader's own view (`vulkaninfo --summary`) on this machine (lavapipe).

use std::process::{Command, Output};

fn sassport(args: &[&str]) -> Output {
    let xdg = std::env::temp_dir().join("sassport-cli-xdg");
    std::fs::create_dir_all(&xdg).unwrap();
    Command::new(env!("CARGO_BIN_EXE_sassport"))
        .args(args)
        .env("XDG_RUNTIME_DIR", &xdg)
        .output()
        .expect("sassport runs")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// deviceName and apiVersion lines of `vulkaninfo --summary`, if the tool is installed.
fn vulkaninfo_devices() -> Option<Vec<(String, String)>> {
    let xdg = std::env::temp_dir().join("sassport-cli-xdg");
    std::fs::create_dir_all(&xdg).unwrap();
    let out = Command::new("vulkaninfo")
        .arg("--summary")
        .env("XDG_RUNTIME_DIR", &xdg)
        .output()
        .ok()?;
    let s = String::from_utf8_lossy(&out.stdout);
    let field = |line: &str, key: &str| {
        line.trim()
            .strip_prefix(key)
            .map(|r| r.trim_start().trim_start_matches('=').trim().to_owned())
    };
    let names: Vec<String> = s.lines().filter_map(|l| field(l, "deviceName")).collect();
    let versions: Vec<String> = s
        .lines()
        .filter_map(|l| field(l, "apiVersion"))
        .map(|v| v.split_whitespace().next().unwrap_or("").to_owned())
        .collect();
    Some(names.into_iter().zip(versions).collect())
}

#[test]
fn lists_every_device_the_loader_reports() {
    let out = sassport(&["devices"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("(default)"), "{stdout}");
    let expected = vulkaninfo_devices().unwrap_or_else(|| vec![("llvmpipe".into(), "1.3".into())]);
    assert!(!expected.is_empty());
    for (i, (name, version)) in expected.iter().enumerate() {
        assert!(
            stdout.contains(&format!("[{i}] {name}")),
            "missing device {i} {name}:\n{stdout}"
        );
        assert!(
            stdout.contains(&format!("Vulkan {version}")),
            "missing version {version}:\n{stdout}"
        );
    }
    assert!(
        stdout.contains("subgroup size")
            && stdout.contains("Int64")
            && stdout.contains("float controls")
    );
}

#[test]
fn lavapipe_is_described_as_measured_in_the_notes() {
    let out = sassport(&["devices", "--device", "llvmpipe"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    let block: String = stdout
        .split("\n[")
        .find(|b| b.contains("llvmpipe"))
        .unwrap()
        .to_owned();
    assert!(block.contains("(selected)"), "{block}");
    assert!(block.contains("type CPU"), "{block}");
    // shared/notes/vulkan-targets.md: subgroup 8, 32 KiB shared memory, 65,535 workgroups per dimension,
    // Int64/Float64/Int16 present, round-to-nearest-even only.
    assert!(block.contains("subgroup size 8"), "{block}");
    assert!(block.contains("shared memory 32768 B"), "{block}");
    assert!(
        block.contains("workgroup count 65535x65535x65535"),
        "{block}"
    );
    assert!(
        block.contains("Int64 yes, Float64 yes, Int16 yes"),
        "{block}"
    );
    assert!(block.contains("RTE yes/yes/yes, RTZ no/no/no"), "{block}");
    assert!(block.contains("usable: yes"), "{block}");
}

#[test]
fn measures_lavapipe_float_behaviour() {
    let out = sassport(&["devices", "--device", "llvmpipe", "--measure"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    // Measured independently on lavapipe (shared/notes/vulkan-targets.md): Fma not fused, denormals kept.
    assert!(stdout.contains("Fma f32 fused: no"), "{stdout}");
    assert!(
        stdout.contains("f32 denormals preserved without float controls: yes"),
        "{stdout}"
    );
}

#[test]
fn unknown_devices_are_refused() {
    let out = sassport(&["devices", "--device", "99"]);
    let (_, stderr) = text(&out);
    assert!(!out.status.success());
    assert!(
        stderr.contains("no Vulkan device with index 99"),
        "{stderr}"
    );
    let out = sassport(&["devices", "--device", "no-such-gpu"]);
    let (_, stderr) = text(&out);
    assert!(!out.status.success());
    assert!(
        stderr.contains("no Vulkan device whose name contains \"no-such-gpu\""),
        "{stderr}"
    );
}
