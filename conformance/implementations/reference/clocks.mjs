// The clocks while the harness feeds Pi a provider's response (response.<api>) or runs a live
// turn (events): what Pi reads them for must make the same golden on every run.
//
// * The wall clock ticks: each reading is one millisecond after the one before, from the
//   (possibly shifted) time the call began. Two values Pi read apart are never equal, and a
//   value Pi copied always is, whatever the machine's speed: which of the timestamps are one
//   generated value (a golden's volatile groups) is Pi's doing, not a millisecond's. Stopping
//   the clock instead would make every timestamp of a turn one value, and require a port's to
//   be one too.
// * The monotonic clock pi-ai times a response with (`durationMs`) is left as the caller
//   says (it runs on for a response; it stands still for a turn); a varied run moves the
//   reading that ends the timing by the clock offset (endingOffset), so the duration always
//   differs from a plain run's and is found volatile, never required.

/** The wall clock ticking from its current reading; returns the function that restores it. */
export function tickWallClock() {
	const Running = globalThis.Date;
	let next = Running.now();
	const read = () => next++;
	class TickingDate extends Running {
		constructor(...args) {
			if (args.length === 0) super(read());
			else super(...args);
		}
		static now() {
			return read();
		}
	}
	globalThis.Date = TickingDate;
	return () => {
		globalThis.Date = Running;
	};
}

/** Run `fn` with `performance.now()` ahead by `offset` ms (0: as it is). */
export function withMonotonicAhead(offset, fn) {
	if (offset === 0) return fn();
	const reading = performance.now;
	performance.now = () => reading.call(performance) + offset;
	try {
		return fn();
	} finally {
		performance.now = reading;
		if (performance.now === Performance.prototype.now) delete performance.now;
	}
}
