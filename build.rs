//! Bundles the rule files of `rules/` (and the weights they name) into the
//! binary (`src/bundled.rs`), so that an installed `chessalg` plays them by
//! name from any directory.

use std::fmt::Write;

/// The files of `rules/FOLDER` ending in `ext`, as paths under `rules/`, sorted.
fn files(folder: &str, ext: &str) -> Vec<String> {
    let dir = format!("rules/{folder}");
    println!("cargo::rerun-if-changed={}", dir.trim_end_matches('/'));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.ends_with(ext))
                .map(|n| format!("{folder}{n}"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// A static table `name` of (path under `rules/`, text) for `paths`.
fn table(out: &mut String, doc: &str, name: &str, paths: &[String]) {
    writeln!(out, "/// {doc}\npub static {name}: &[(&str, &str)] = &[").unwrap();
    for path in paths {
        println!("cargo::rerun-if-changed=rules/{path}");
        writeln!(
            out,
            "    ({path:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/rules/{path}\"))),"
        )
        .unwrap();
    }
    out.push_str("];\n");
}

fn main() {
    let rules = files("", ".alg");
    assert!(!rules.is_empty(), "the rules folder");
    let mut out = String::new();
    table(
        &mut out,
        "The bundled rule files: file name and text.",
        "FILES",
        &rules,
    );
    // Data the rule files name (`weights "weights/checkers.json"`).
    let data = files("weights/", ".json");
    table(
        &mut out,
        "The bundled data files: path under `rules/` and text.",
        "DATA",
        &data,
    );
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("bundled_rules.rs");
    std::fs::write(dest, out).unwrap();
}
