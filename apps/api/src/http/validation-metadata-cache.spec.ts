import { getMetadataStorage, IsInt, IsString, Max, validate } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { cacheValidationMetadata } from './validation-metadata-cache.js';

cacheValidationMetadata();
cacheValidationMetadata(); // a second install must not wrap the first

const storage = getMetadataStorage();
const rulesOf = (target: object) =>
  storage.getTargetValidationMetadatas(target as never, '', true, false);
const failed = async (value: object) =>
  (await validate(value)).map((error) => [error.property, Object.keys(error.constraints ?? {})]);

class Parent {
  @IsString()
  name: unknown = 'ok';
}

describe('the remembered validation rules', () => {
  it('are the same answer, looked up once', async () => {
    const first = rulesOf(Parent);
    expect(first.map((rule) => rule.propertyName)).toEqual(['name']);
    expect(rulesOf(Parent)).toBe(first);
    expect(await failed(Object.assign(new Parent(), { name: 3 }))).toEqual([
      ['name', ['isString']],
    ]);
  });

  it('include the rules a class inherits when it is defined after its parent was validated', async () => {
    expect(await failed(new Parent())).toEqual([]);
    class Child extends Parent {
      @IsInt()
      size: unknown = 'big';
    }
    expect(await failed(Object.assign(new Child(), { name: 3 }))).toEqual([
      ['size', ['isInt']],
      ['name', ['isString']],
    ]);
  });

  it('are forgotten when a rule is added, so a new rule on a validated class applies', async () => {
    class Later {
      @IsInt()
      count: unknown = 50;
    }
    expect(await failed(new Later())).toEqual([]);
    Max(10)(Later.prototype, 'count');
    expect(await failed(new Later())).toEqual([['count', ['max']]]);
  });
});
