// std::thread: spawned threads, join with results, a shared counter under
// a Mutex, an Arc, a Condvar hand-off and thread-local storage.
use std::cell::Cell;
use std::sync::{Arc, Condvar, Mutex};
use std::thread;

thread_local! {
    static CALLS: Cell<u32> = Cell::new(0);
}

fn count() -> u32 {
    CALLS.with(|c| {
        c.set(c.get() + 1);
        c.get()
    })
}

fn main() {
    let counter = Arc::new(Mutex::new(0u64));
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let counter = Arc::clone(&counter);
            thread::Builder::new()
                .name(format!("worker-{}", i))
                .spawn(move || {
                    let mut local = 0u32;
                    for _ in 0..1000 {
                        *counter.lock().unwrap() += 1;
                        local = count();
                    }
                    (thread::current().name().unwrap().to_string(), local)
                })
                .unwrap()
        })
        .collect();
    for h in handles {
        let (name, calls) = h.join().unwrap();
        println!("{} counted {} calls of its own", name, calls);
    }
    println!("counter: {}", *counter.lock().unwrap());
    println!("main thread's own calls: {}", count());

    let pair = Arc::new((Mutex::new(false), Condvar::new()));
    let pair2 = Arc::clone(&pair);
    let t = thread::spawn(move || {
        let (lock, cvar) = &*pair2;
        *lock.lock().unwrap() = true;
        cvar.notify_one();
    });
    let (lock, cvar) = &*pair;
    let mut ready = lock.lock().unwrap();
    while !*ready {
        ready = cvar.wait(ready).unwrap();
    }
    t.join().unwrap();
    println!("condvar hand-off: {}", *ready);
}
