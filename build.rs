//! Bundles the rule files of `rules/` (and the weights they name) into the binary (`src/bundled.rs`),
//! so that an installed `chessalg` plays them by name from any directory.

use std::fmt::Write;

fn main() {
    println!("cargo::rerun-if-changed=rules");
    let mut names: Vec<String> = std::fs::read_dir("rules")
        .expect("the rules folder")
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".alg"))
        .collect();
    names.sort();
    let mut out = String::from(
        "/// The bundled rule files: file name and text.\npub static FILES: &[(&str, &str)] = &[\n",
    );
    for name in &names {
        println!("cargo::rerun-if-changed=rules/{name}");
        writeln!(
            out,
            "    ({name:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/rules/{name}\"))),"
        )
        .unwrap();
    }
    out.push_str("];\n");
    // Data the rule files name (`weights "weights/checkers.json"`).
    let mut data: Vec<String> = std::fs::read_dir("rules/weights")
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.ends_with(".json"))
                .map(|n| format!("weights/{n}"))
                .collect()
        })
        .unwrap_or_default();
    data.sort();
    println!("cargo::rerun-if-changed=rules/weights");
    out.push_str(
        "/// The bundled data files: path under `rules/` and text.\npub static DATA: &[(&str, &str)] = &[\n",
    );
    for name in &data {
        println!("cargo::rerun-if-changed=rules/{name}");
        writeln!(
            out,
            "    ({name:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/rules/{name}\"))),"
        )
        .unwrap();
    }
    out.push_str("];\n");
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("bundled_rules.rs");
    std::fs::write(dest, out).unwrap();
}
