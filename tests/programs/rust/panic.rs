// A panic: one caught with catch_unwind, then one that unwinds main, which
// std reports on stderr before exiting with status 101.
use std::panic;

fn main() {
    let caught = panic::catch_unwind(|| {
        let v: Vec<u32> = Vec::new();
        v[3]
    });
    println!("caught: {}", caught.is_err());
    let r: Result<u32, String> = Err("no value".to_string());
    r.expect("the last word");
}
