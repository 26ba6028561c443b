export * from '../index';
