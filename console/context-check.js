// The playground's context, checked in the browser against the chosen function's parameters (as
// the check answered them) before it is sent: JSON, an object keyed by parameter name or an array
// in parameter order, every parameter given and no other. The types are the engine's to judge.

/** What is wrong with `text` as the context of `fn` ({name, parameters}); empty when it can be sent. */
export function contextProblems(text, fn) {
  let context;
  try {
    context = JSON.parse(text);
  } catch (parseError) {
    return [`The context is not JSON: ${parseError.message}`];
  }
  const names = fn.parameters.map((parameter) => parameter.name);
  if (Array.isArray(context)) {
    return context.length === names.length ? [] : [`An array gives the parameters in order: ${fn.name} takes ${names.length}, the array has ${context.length}.`];
  }
  if (context === null || typeof context !== 'object') return ['The context is an object keyed by parameter name (or an array in parameter order).'];
  return [
    ...fn.parameters.filter((parameter) => !Object.hasOwn(context, parameter.name)).map((parameter) => `Missing parameter ${parameter.name} (${parameter.type}).`),
    ...Object.keys(context)
      .filter((key) => !names.includes(key))
      .map((key) => `Unknown parameter ${key}: ${fn.name} takes ${names.length === 0 ? 'none' : names.join(', ')}.`),
  ];
}

/** A context to start from: each parameter with a placeholder of its type. */
export function contextTemplate(fn) {
  const placeholder = (type) => (/^(Int|Float)$/.test(type) ? 0 : type === 'Bool' ? false : type === 'Text' ? '' : /^List of /.test(type) ? [] : {});
  return JSON.stringify(Object.fromEntries(fn.parameters.map((parameter) => [parameter.name, placeholder(parameter.type)])), null, 2);
}
