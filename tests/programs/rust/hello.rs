// The smallest Rust program: std's start-up (it polls descriptors 0-2 and
// reopens any that are closed, ignores SIGPIPE, sets up the main thread's
// stack-overflow handler on an alternate signal stack) and one write.
fn main() {
    println!("hello, world");
}
