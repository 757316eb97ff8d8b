/** A bare address: something@somewhere, with nothing that could start a second address or a header. */
export const isBareAddress = (address: string): boolean => /^[^\s<>,;:"()[\]\\@]+@[^\s<>,;:"()[\]\\@]+$/u.test(address);
