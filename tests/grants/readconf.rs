// A Rust program that reads its configuration the way Rust programs do
// (std::fs::read_to_string, metadata, read_dir, canonicalize), for
// tests/grants: judged by a native run over the same files.
//
// Built twice: as an ordinary program, and with `--cfg c_main`, where the
// C library calls `main` directly and std's start-up (which polls
// descriptors 0-2, a call issue 31 brings) does not run; std::fs is the
// same in both.
#![cfg_attr(c_main, no_main)]
use std::env;
use std::fs;

#[cfg(c_main)]
#[no_mangle]
pub extern "C" fn main(_argc: i32, _argv: *const *const u8) -> i32 {
    run();
    0
}

#[cfg(not(c_main))]
fn main() {
    run();
}

fn run() {
    let args: Vec<String> = env::args().collect();
    let (conf, dir, link) = (&args[1], &args[2], &args[3]);
    let text = fs::read_to_string(conf).expect("read the configuration");
    let mut pairs: Vec<(String, String)> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut kv = l.splitn(2, '=');
            let k = kv.next().unwrap_or("").trim().to_string();
            let v = kv.next().unwrap_or("").trim().to_string();
            (k, v)
        })
        .collect();
    pairs.sort();
    for (k, v) in &pairs {
        println!("{} = {}", k, v);
    }
    let meta = fs::metadata(conf).expect("metadata");
    println!("len {} dir {} readonly {}", meta.len(), meta.is_dir(), meta.permissions().readonly());
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    println!("{:?}", names);
    println!("cwd {:?}", env::current_dir().map_err(|e| e.kind()));
    println!("canonicalize {:?}", fs::canonicalize(link).map_err(|e| e.kind()));
    for p in ["/data/abs", "/data/rel_out", "/proc/self/root/etc/hostname"] {
        println!("{}: {:?}", p, fs::read_to_string(p).map(|s| s.len()).map_err(|e| e.kind()));
    }
    println!("write: {:?}", fs::write(format!("{}.new", conf), b"x").map_err(|e| e.kind()));
}
