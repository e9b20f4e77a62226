/**
 * Names that are Object.prototype's members (and `__proto__`, which may be refused with a clear error): ids, keys and
 * tool names so named are stored and read like any other.
 */
export const PROTOTYPE_NAMES = [
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  '__proto__',
];
