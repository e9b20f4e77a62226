const Sequencer = require('@jest/test-sequencer').default;

/**
 * jest's order, except that files it has no duration for (a clean checkout: CI) start with the *.slow.test.ts ones.
 * jest then orders those by file size, which put the short files that run longest (recall, the local model) last,
 * leaving one worker to run them alone at the end.
 */
class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const early = (test) => test.duration == null && test.path.endsWith('.slow.test.ts');
    return [...sorted.filter(early), ...sorted.filter((test) => !early(test))];
  }
}

module.exports = SlowFirstSequencer;
