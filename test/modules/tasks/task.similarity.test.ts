import { vectorPart } from '../../../src/modules/tasks/task.similarity';

describe('ranking formulas', () => {
  it('similarTasks: the vector part is the mean of the applicable cosines, negatives counting as 0', () => {
    expect(vectorPart([0.8, null])).toBe(0.8);
    expect(vectorPart([0.8, -0.4])).toBe(0.4);
    expect(vectorPart([null, null])).toBe(0);
  });
});
