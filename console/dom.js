// Builds elements without innerHTML: text always goes in as text, and no inline style or script
// attribute is ever written (the Content-Security-Policy would refuse them).

/** `h('button', {type: 'button', onClick}, 'Resolve')`: attributes, `on…` listeners, children. */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === 'className') element.className = value;
    else element.setAttribute(key, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

/** Appends nodes and text, skipping null, undefined and false (for `condition && h(…)`). */
export function append(parent, children) {
  for (const child of [children].flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : String(child));
  }
  return parent;
}

/** Replaces an element's children. */
export function replaceChildren(parent, ...children) {
  parent.replaceChildren();
  return append(parent, children);
}

/** Tells screen readers what just happened (a polite live region in index.html). */
export function announce(message) {
  const region = document.getElementById('announcer');
  if (region) region.textContent = message;
}

/** A form control with its label (and a help line the control may point to as `${id}-help`). */
export function formField(id, label, control, help) {
  return h('div', { className: 'field' }, h('label', { for: id }, label), control, help && h('p', { id: `${id}-help`, className: 'help' }, help));
}

/**
 * A form's refusal of what was typed: `element` (an alert under the form, hidden until needed),
 * `show(control, text)` marks the control invalid, says why and focuses it; `clear(controls)`.
 */
export function formProblem(testId) {
  const element = h('p', { className: 'form-error', role: 'alert', hidden: true, 'data-testid': testId });
  return {
    element,
    show: (control, text) => {
      control.setAttribute('aria-invalid', 'true');
      element.textContent = text;
      element.hidden = false;
      control.focus();
    },
    clear: (controls) => {
      for (const control of controls) control.removeAttribute('aria-invalid');
      element.hidden = true;
    },
  };
}
