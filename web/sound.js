// Short tones for moves, captures, checks, the end and low time, made with Web Audio (no sound
// files to ship).

let context = null;
let enabled = localStorage.getItem("arbiter-sound") !== "off";

export function soundOn() {
  return enabled;
}

export function setSound(on) {
  enabled = on;
  localStorage.setItem("arbiter-sound", on ? "on" : "off");
}

function tone(frequency, duration, type = "sine", when = 0) {
  if (!enabled) return;
  try {
    context = context || new (window.AudioContext || window.webkitAudioContext)();
    const osc = context.createOscillator();
    const gain = context.createGain();
    osc.type = type;
    osc.frequency.value = frequency;
    const t = context.currentTime + when;
    gain.gain.setValueAtTime(0.2, t);
    gain.gain.exponentialRampToValueAtTime(0.001, t + duration);
    osc.connect(gain).connect(context.destination);
    osc.start(t);
    osc.stop(t + duration);
  } catch (e) {
    // No audio here (a headless browser, a blocked context): silence is fine.
  }
}

export function playCapture() {
  tone(220, 0.18, "square");
}

export function playCheck() {
  tone(880, 0.12, "triangle");
  tone(660, 0.18, "triangle", 0.12);
}

export function playEnd() {
  tone(523, 0.15);
  tone(659, 0.15, "sine", 0.15);
  tone(784, 0.3, "sine", 0.3);
}

export function playMove() {
  tone(440, 0.06, "triangle");
}

// Your clock runs low: two high beeps, unlike any move's tone.
export function playLowTime() {
  tone(1320, 0.08, "square");
  tone(1320, 0.08, "square", 0.16);
}
