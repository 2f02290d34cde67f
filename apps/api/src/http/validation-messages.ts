/** The wording of an enum field's error, shared so every enum says the same thing. */
export const oneOf = (values: readonly string[]) => ({
  message: `must be one of ${values.join(', ')}`,
});
