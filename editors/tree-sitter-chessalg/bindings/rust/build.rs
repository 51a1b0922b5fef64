//! Compiles the generated parser and the layout scanner.
fn main() {
    let src = std::path::Path::new("src");
    cc::Build::new()
        .include(src)
        .std("c11")
        .warnings(false)
        .file(src.join("parser.c"))
        .file(src.join("scanner.c"))
        .compile("tree-sitter-chessalg");
    for f in ["parser.c", "scanner.c"] {
        println!("cargo:rerun-if-changed=src/{f}");
    }
}
