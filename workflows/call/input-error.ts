export { InvalidModelCallInputError } from '../../common/input-error.js';
