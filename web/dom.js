// Building the page: elements, the live region screen readers hear, the modal question, and a
// queue that runs async steps one at a time.

export const app = document.getElementById("app");

// The page's own title, which the tab shows whenever no game of this screen's is running.
const BASE_TITLE = document.title;

// The tab's title: "`text` — arbiter" (whose move it is), or the page's own title for none.
export function setTabTitle(text = null) {
  const title = text ? `${text} — arbiter` : BASE_TITLE;
  if (document.title !== title) document.title = title;
}

// An element with attributes (`on…` ones are listeners) and children (text or nodes).
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v === true) node.setAttribute(k, "");
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// Says something to screen readers (and keeps it on screen in the live region's place).
export function announce(text) {
  const live = document.getElementById("live");
  if (live && live.textContent !== text) live.textContent = text;
}

// A modal question in a real <dialog>: focus moves in, Escape answers `no`.
export function confirmDialog(text, yes, no) {
  const dialog = document.getElementById("dialog");
  document.getElementById("dialog-text").textContent = text;
  const yesButton = document.getElementById("dialog-yes");
  const noButton = document.getElementById("dialog-no");
  yesButton.textContent = yes;
  noButton.textContent = no;
  return new Promise((resolve) => {
    const done = (answer) => {
      yesButton.onclick = noButton.onclick = null;
      dialog.onclose = null;
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    yesButton.onclick = () => done(true);
    noButton.onclick = () => done(false);
    dialog.oncancel = (e) => {
      e.preventDefault();
      done(false);
    };
    dialog.showModal();
    noButton.focus();
  });
}

// Runs async steps one after another, so no step starts before the last one ended.
export class Serial {
  constructor(onError) {
    this.chain = Promise.resolve();
    this.onError = onError || ((e) => console.error(e));
  }

  run(step) {
    this.chain = this.chain.then(step).catch(this.onError);
    return this.chain;
  }
}
